def run():
    prepare()
    execute(fast=True)
    report()
    cleanup()
