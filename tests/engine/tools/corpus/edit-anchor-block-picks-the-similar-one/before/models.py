class A:
    def save(self):
        self.validate()
        self.store(self.payload, retries=3)
        return True


class B:
    def save(self):
        db.commit()
        return True
