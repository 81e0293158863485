"""The sessions room: the sessions as a set (``index``, ``seals``: whose each is), a session's conversation and todo
list in the database (``conversation``, ``conversation_log``, ``todos``), its snapshot file (``snapshot``), its lock
(``lock``), and what reads them back: resume's repair (``recovery``), the rebuild from snapshots (``rebuild``), the
front end's history (``history_read``), attached images (``blobs``)."""
