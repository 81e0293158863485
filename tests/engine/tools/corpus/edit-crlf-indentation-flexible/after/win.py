def f():
    if x:
        y()
        z()
