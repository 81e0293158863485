"""The engine as a server: ``host.EngineHost`` is the one serving loop (one orchestrator, one front end);
``lines.LineSession`` speaks the JSON-lines protocol of ``engine.protocol`` over it, through the ``stdio``
transport (``python -m engine.server``, the TUI's engine process) or the ``memory`` transport (tests).
"""
