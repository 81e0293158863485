"""The ways coder-tui runs besides the full screen: headless mode, the home-folder choice, the demo server."""
