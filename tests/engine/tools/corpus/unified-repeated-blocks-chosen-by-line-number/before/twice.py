def first():
    retry()
    return 1


def second():
    retry()
    return 1
