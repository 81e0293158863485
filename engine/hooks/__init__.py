"""Hooks (SPEC 23), in Claude Code's protocol: commands from the config run at session start, on each request,
before and after each tool call, when a turn stops and on notifications. ``settings``: the config shape;
``runner``: how one command runs; ``answers``: what its exit code and output mean; ``dispatcher``: an event's hooks
run together, audited, reported when they fail."""
