"""The slash commands users bring from other agents (SPEC 23): each module holds one command or one concept, and
``engine.orchestrator.slash`` registers them in its table."""
