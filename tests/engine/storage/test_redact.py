"""SPEC 12: API keys and secrets are never written: not to the database, not to a session file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.events import TodoItem
from engine.messages import FunctionCall, Message, ToolCall
from engine.storage.db import Database, database_path
from engine.storage.log.records import (
    InteractionRequested,
    InteractionResponded,
    PermissionDecided,
    TaskEvent,
    ToolCallCompleted,
    ToolCallRequested,
)
from engine.storage.redact import _KEYWORDS, _NON_ASCII_LOOKALIKES, _PATTERNS, REDACTED, Redactor, _replace_match
from engine.storage.sessions.snapshot import encode_message
from engine.storage.store import Store

OPENAI_KEY = "sk-proj-Abc123def456GHI789jkl012"
ENV_KEY = "zq7-custom-provider-key-000111"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"my key is {OPENAI_KEY}.", f"my key is {REDACTED}."),
        ("sk-or-v1-0123456789abcdef0123", REDACTED),
        ("Authorization: Bearer eyJhbGciOi.payload.sig", f"Authorization: Bearer {REDACTED}"),
        ('{"Authorization": "Basic dXNlcjpwYXNz"}', f'{{"Authorization": "Basic {REDACTED}"}}'),
        ("authorization=token ghp_0123456789", f"authorization=token {REDACTED}"),
        ("curl -H 'x-api-key: abcdef12345' url", f"curl -H 'x-api-key: {REDACTED}' url"),
        ("bearer abcdefghijklmnop", f"bearer {REDACTED}"),
    ],
)
def test_secret_shapes_are_redacted(text: str, expected: str) -> None:
    assert Redactor({}).redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "pip install scikit-learn; import sk-learn",
        "the authorization flow is described below",
        "Bearer $OPENAI_API_KEY",
        "max_tokens = 4096",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert Redactor({}).redact(text) == text


def test_values_of_secret_environment_variables_are_redacted_by_name() -> None:
    redactor = Redactor(
        {
            "MY_PROVIDER_API_KEY": ENV_KEY,
            "GITHUB_TOKEN": "gho_abcdefgh",
            "APP_SECRET": "hunter2hunter2",
            "HOME": "/root/x",
        }
    )
    text = f"use {ENV_KEY} and gho_abcdefgh and hunter2hunter2 in /root/x"
    assert redactor.redact(text) == (
        "use [REDACTED:MY_PROVIDER_API_KEY] and [REDACTED:GITHUB_TOKEN] and [REDACTED:APP_SECRET] in /root/x"
    )


def test_short_secret_values_are_not_used_to_shred_text() -> None:
    assert Redactor({"DEBUG_TOKEN": "1"}).redact("version 1.1") == "version 1.1"


def test_a_secret_of_exactly_the_minimum_length_is_redacted_and_one_shorter_is_not() -> None:
    """The documented boundary, as a literal: a value of 8 characters is a secret, one of 7 is not."""
    at_minimum = "k" * 8
    shorter = "s" * 7
    redactor = Redactor({"APP_TOKEN": at_minimum, "OTHER_TOKEN": shorter})
    assert redactor.redact(f"a {at_minimum} b {shorter}") == f"a [REDACTED:APP_TOKEN] b {shorter}"
    assert Redactor({}).redact(f"bearer {at_minimum}") == f"bearer {REDACTED}"
    assert Redactor({}).redact(f"bearer {shorter}") == f"bearer {shorter}"


def test_redaction_inside_json_arguments_keeps_them_valid_json() -> None:
    arguments = json.dumps({"command": f'curl -H "Authorization: Bearer {OPENAI_KEY}" https://api'})
    redacted = Redactor({}).redact(arguments)
    assert OPENAI_KEY not in redacted
    assert json.loads(redacted)["command"] == f'curl -H "Authorization: Bearer {REDACTED}" https://api'


def test_credential_keys_of_written_dicts_are_redacted_whatever_the_value() -> None:
    value = {"headers": {"Authorization": "opaque", "Accept": "json"}, "api_key": "opaque", "max_tokens": 10}
    assert Redactor({}).redact_value(value) == {
        "headers": {"Authorization": REDACTED, "Accept": "json"},
        "api_key": REDACTED,
        "max_tokens": 10,
    }


def test_nothing_the_store_writes_contains_a_secret(workspace: Path) -> None:
    store = Store(Database.open(database_path(workspace)), redactor=Redactor({"CUSTOM_API_KEY": ENV_KEY}))
    leaks = f"{OPENAI_KEY} {ENV_KEY}"
    session_id = store.sessions.create(model="m", mode="default", title=f"title {leaks}")
    store.conversation.append(session_id, Message.user(f"here is my key {leaks}"))
    store.conversation.append(
        session_id,
        Message.assistant(
            None,
            [ToolCall(id="c1", function=FunctionCall(name="bash", arguments=json.dumps({"command": f"echo {leaks}"})))],
            reasoning=f"the user gave {leaks}",
        ),
    )
    store.conversation.append(session_id, Message.tool("c1", "bash", json.dumps({"stdout": leaks})))
    store.events.record(session_id, TaskEvent("TaskCreated", "t1", f"request {leaks}"))
    store.events.record(session_id, TaskEvent("TaskFailed", "t1", f"error {leaks}"))
    store.events.record(
        session_id,
        InteractionRequested("i1", "t1", "Input", "request_info", f"q {leaks}", (leaks,), {"arg": leaks}),
    )
    store.events.record(session_id, InteractionResponded("i1", "t1", leaks))
    store.audit.record(ToolCallRequested(session_id, None, "c1", "bash", {"command": f"echo {leaks}"}))
    store.audit.record(ToolCallCompleted(session_id, None, "c1", "bash", {"stdout": leaks}, False, 1))
    store.audit.record(PermissionDecided(session_id, None, None, "bash", {"command": leaks}, "ask", (leaks,), "policy"))
    store.todos.save(session_id, [TodoItem("1", f"rotate {leaks}", "pending")])
    loaded = store.conversation.load(session_id)
    store.close()

    assert loaded.messages[0].content == f"here is my key {REDACTED} [REDACTED:CUSTOM_API_KEY]"
    assert json.loads(loaded.messages[1].tool_calls[0].function.arguments)["command"].startswith("echo [REDACTED")
    for path in (workspace / ".coder").rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert OPENAI_KEY.encode() not in data, path
            assert ENV_KEY.encode() not in data, path


def test_the_session_file_encoding_redacts_keys() -> None:
    encoded = encode_message(Message.user(f"key {OPENAI_KEY}"))
    assert OPENAI_KEY not in encoded
    assert json.loads(encoded)["content"] == f"key {REDACTED}"


@pytest.mark.parametrize(
    "text",
    [
        "AUTHORIZATION: BEARER eyJhbGciOi.payload.sig",
        "Authorization: Bearer eyJhbGciOi.payload.sig, said the café's log",
        f"a key in non-ASCII text: {OPENAI_KEY} (clé)",
        # Characters that match an ASCII letter case-insensitively: the Kelvin sign, long s, dotless and dotted i.
        "s\u212a-0123456789abcdef0123",
        "\u017fk-0123456789abcdef0123",
        "author\u0131zation: 0123456789abcdef",
        "author\u0130zation: 0123456789abcdef",
    ],
)
def test_the_quick_check_never_skips_a_secret(text: str) -> None:
    assert Redactor({}).redact(text) == _PATTERNS.sub(_replace_match, text) != text


@pytest.mark.parametrize("line", ["def main():\n    return 'no key here'\n", "# café: no key here either\n"])
def test_text_without_a_secret_comes_back_unchanged(line: str) -> None:
    text = line * 1000
    assert Redactor({}).redact(text) is text


def test_the_look_alikes_are_every_non_ascii_character_matching_a_keyword_letter() -> None:
    letters = re.compile("[" + re.escape("".join(sorted(set("".join(_KEYWORDS))))) + "]", re.IGNORECASE)
    matching = {chr(code) for code in range(0x80, 0x110000) if letters.fullmatch(chr(code))}
    assert matching == set(_NON_ASCII_LOOKALIKES)
