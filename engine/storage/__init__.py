"""Persistence (SPEC 12): the SQLite logs behind ``Store``, the session snapshot file, crash recovery, per-turn
undo and the ``/diff`` data. Import the modules themselves; this package imports nothing on its own."""
