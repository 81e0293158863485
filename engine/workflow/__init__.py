"""The work habits around a turn: todo lists for complex requests (SPEC 9), loop detection (SPEC 11) and
auto-verify after edits (SPEC 8). Plain functions and small state objects; the turn pipeline wires them in."""
