import os
import json


def load(path):
    with open(path) as handle:
        return handle.read()


def save(path, data):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(data)
