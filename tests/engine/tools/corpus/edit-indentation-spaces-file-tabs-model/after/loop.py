def f():
    for x in xs:
        if x:
            use(x)
