class Job:
    def run(self):
        if ready:
            start()
        return True
