class Reader:
    def close(self):
        self.handle = None


class Writer:
    def close(self):
        self.handle = None
