"""The coder-tui engine: orchestrator, provider, tools, policy and storage.

Nothing in this package imports Textual; every front end (the TUI, headless mode, tests) drives it through
`engine.orchestrator.Orchestrator`, its typed events and the interaction interface.
"""
