import os


def load(path):
    with open(path) as handle:
        return handle.read()


def save(path, data):
    with open(path, "w") as handle:
        handle.write(data)
