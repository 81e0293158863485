"""The undo room: a session's journal of each turn's paths before it (``journal``, opened by ``session_journal``),
putting a turn back (``apply``), journals of older versions moved into the content store (``legacy``), what an undo
did (``result``), a file's state (``file_state``), and what ``/diff`` shows (``workspace_diff``)."""
