if a:
    x()
    y()
if b:
        x()
        y()
