def f():
    for x in xs:
        use(x)
