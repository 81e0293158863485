def greet(who):
    print('hello', who)


def leave(who):
    print('bye', who)
