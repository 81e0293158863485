"""Test support: the scripted OpenAI-compatible server and the scenario helpers that script it."""
