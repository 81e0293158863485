say(“hello world”)
