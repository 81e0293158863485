try:
    run()
except Error:
    pass

try:
    run()
except Error:
    pass
