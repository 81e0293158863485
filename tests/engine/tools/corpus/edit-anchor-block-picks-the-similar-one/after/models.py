class A:
    def save(self):
        self.store(self.payload, retries=5)
        return True


class B:
    def save(self):
        db.commit()
        return True
