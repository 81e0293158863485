def run():
    prepare()
    execute()
    cleanup()
