call(a, b, c, d)
next()
