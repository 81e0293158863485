class Job:
    def run(self):
        if ready:
            start()
            log('started')
        return True
