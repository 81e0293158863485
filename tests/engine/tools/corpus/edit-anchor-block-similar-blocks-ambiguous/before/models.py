class A:
    def save(self):
        self.validate()
        self.store(1)
        return True


class B:
    def save(self):
        self.validate()
        self.store(2)
        return True
