"""The engine as a server: ``host.EngineHost`` is the one serving loop (one orchestrator, one front end);
``lines.LineSession`` speaks the JSON-lines protocol of ``engine.protocol`` over it, through the ``stdio``
transport (``python -m engine.server``, the TUI's engine process) or the ``memory`` transport (tests). Left running
by its UI, the engine process serves the next one over a private Unix socket (``detached``, ``rendezvous``).
"""
