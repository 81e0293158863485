def greet(name):
    print('hello', name)


def leave(name):
    print('bye', name)
