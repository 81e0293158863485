"""The Textual front end of coder-tui."""
