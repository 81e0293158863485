msg = "hello"
