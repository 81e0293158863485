"""The prompt's input: key bindings, the terminal driver, paste, completion, history, the external editor."""
