def f():
    x = 10
    y = 20
