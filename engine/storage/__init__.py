"""Persistence (SPEC 12) in rooms: ``sessions/`` (the sessions, their conversations, snapshot files, locks and
seals), ``log/`` (the event and audit logs) and ``undo/`` (the per-turn undo journal and ``/diff``). ``store.Store``
opens the database and hands out the rooms; beside it the parts they share: the connection and its migrations
(``db``, ``migrations``), redaction, names that become paths, atomic writes, the ``.coder/`` folder and the user's
state key (``provenance``). Import the modules themselves; this package imports nothing on its own."""
