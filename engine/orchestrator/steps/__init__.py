"""The steps of a turn (SPEC 3), one module each; ``engine.orchestrator.turn`` strings them together."""
