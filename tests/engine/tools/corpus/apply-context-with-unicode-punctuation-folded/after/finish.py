def finish():
    print(“Done — all good”)
    return 1
