"""MCP tool names: cleaned to ^[a-zA-Z0-9_-]+$, within 64 characters, unique."""

from __future__ import annotations

import re

from engine.mcp.names import MAX_NAME, qualified_name, server_pattern

VALID = re.compile(r"^[a-zA-Z0-9_-]+$")


def test_tool_name_is_prefixed_with_server() -> None:
    assert qualified_name("time", "get_current_time") == "mcp__time__get_current_time"


def test_tool_name_cleans_characters_servers_refuse() -> None:
    name = qualified_name("my.server", "read file/v2")
    assert name == "mcp__my_server__read_file_v2"
    assert VALID.match(name)


def test_long_tool_name_is_cut_to_the_limit_and_stays_distinct() -> None:
    first = qualified_name("server", "x" * 80 + "a")
    second = qualified_name("server", "x" * 80 + "b")
    assert len(first) <= MAX_NAME and len(second) <= MAX_NAME
    assert first != second
    assert VALID.match(first) and first.startswith("mcp__server__xxx")


def test_names_equal_after_cleaning_are_made_unique() -> None:
    taken = {qualified_name("s", "a.b")}
    other = qualified_name("s", "a b", taken)
    assert other not in taken and VALID.match(other) and len(other) <= MAX_NAME


def test_server_pattern_covers_the_cleaned_server_name() -> None:
    assert server_pattern("my.git") == "mcp__my_git__*"
