"""The screens of the TUI: the session, and the approval and question dialogs (one per module)."""
