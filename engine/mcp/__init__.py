"""MCP client (SPEC 22): servers from the config and a trusted project's ``.mcp.json``, started in the background,
their tools offered to the model as ``mcp__<server>__<tool>`` and their prompts as slash commands.

Nothing here imports the ``mcp`` SDK at module level: it is loaded in a thread when the first server starts.
"""
