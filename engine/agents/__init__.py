"""Agents (SPEC 26): sessions that run at the same time as the main one, each on a git worktree of its own. The
worktrees (``worktree``) and what is known of each agent (``records``); the orchestrator runs them
(``engine.orchestrator.agent_pool``)."""
