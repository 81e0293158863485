msg = "bye"
