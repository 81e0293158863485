"""Persistence: the session snapshot file (SQLite logs arrive with the persistence issue)."""
