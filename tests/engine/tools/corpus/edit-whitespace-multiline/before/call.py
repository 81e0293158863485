call(a,
     b,   c)
next()
