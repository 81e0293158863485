"""How the transcript's content looks: Markdown, tool states, formatting, mounting and selection."""
