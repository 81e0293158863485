"""Secrets never reach the disk (SPEC 12): everything the store writes passes through ``Redactor.redact`` first.

Three kinds of secret are recognised: API keys by their shape (``sk-...`` as OpenAI, OpenRouter, Anthropic and
DeepSeek issue them), credentials in HTTP headers (``Authorization: Bearer ...``, ``x-api-key: ...``), and the
values of environment variables whose names say they are secret (``*_API_KEY``, ``*_TOKEN``, ``*_SECRET``...). The
last catches keys of any shape, as long as the variable is set in the environment the redactor was built from.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache
from typing import Any

REDACTED = "[REDACTED]"

# Values shorter than this are not treated as secrets: ``FOO_TOKEN=1`` would otherwise shred every "1" in the logs.
MIN_SECRET_LENGTH = 8

_SECRET_NAME = re.compile(r"(?:^|_)(?:API_?KEY|TOKEN|SECRET|SECRET_KEY|SECRET_ACCESS_KEY|PASSWORD)$", re.IGNORECASE)

# Header names whose value is a credential whatever its shape, when they are the keys of a dict being written.
_CREDENTIAL_KEYS = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key"})

_PATTERNS = re.compile(
    "|".join(
        [
            # sk-..., sk-proj-..., sk-or-v1-..., sk-ant-api03-...: long enough not to catch words like "sk-learn".
            r"\bsk-[A-Za-z0-9][A-Za-z0-9_\-]{15,}",
            # The credential of an Authorization header, with or without a scheme, in text, in JSON, or in JSON
            # inside JSON (tool-call arguments): a backslash is never part of the value, so escapes stay intact.
            r"(?<=authorization)(?P<auth_sep>\\?\"?\s*[:=]\s*\\?\"?)(?P<auth_scheme>(?:bearer|basic|token)\s+)?"
            r"(?P<auth_value>[^\s\"',;\\]+)",
            r"(?<=api-key)(?P<key_sep>\\?\"?\s*[:=]\s*\\?\"?)(?P<key_value>[^\s\"',;\\]+)",
            rf"\bbearer\s+(?P<bearer_value>[A-Za-z0-9._~+/=\-]{{{MIN_SECRET_LENGTH},}})",
        ]
    ),
    re.IGNORECASE,
)


# Every shape above contains one of these words (any case): a text without any of them has nothing to redact.
_KEYWORDS = ("sk-", "authorization", "api-key", "bearer")
# The only characters outside ASCII that match a letter of those words case-insensitively (as the regex matches):
# dotted and dotless i, long s, the Kelvin sign. Lowering does not turn the first three into their ASCII letter.
_NON_ASCII_LOOKALIKES = "\u0130\u0131\u017f\u212a"


def _may_hold_a_shape(text: str) -> bool:
    """False when ``_PATTERNS`` cannot match: the same answer, at a fraction of the regex's cost (9 ms for a 100 KB
    file read, twice a call: its tool message and its audit row). A text holding a look-alike goes to the regex."""
    if any(lookalike in text for lookalike in _NON_ASCII_LOOKALIKES):
        return True
    lowered = text.lower()
    return any(keyword in lowered for keyword in _KEYWORDS)


def _replace_match(match: re.Match[str]) -> str:
    groups = match.groupdict()
    if groups.get("auth_value") is not None:
        return f"{groups['auth_sep']}{groups['auth_scheme'] or ''}{REDACTED}"
    if groups.get("key_value") is not None:
        return f"{groups['key_sep']}{REDACTED}"
    if groups.get("bearer_value") is not None:
        return match.group(0)[: match.start("bearer_value") - match.start()] + REDACTED
    return REDACTED


class Redactor:
    """Replaces secrets in strings and, recursively, in the strings of dicts and lists about to be written."""

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        source = os.environ if environ is None else environ
        # Longest first, so a secret that contains another one is replaced whole.
        secrets = [
            (value, name)
            for name, value in source.items()
            if _SECRET_NAME.search(name) and len(value) >= MIN_SECRET_LENGTH
        ]
        self._env_secrets = sorted(secrets, key=lambda pair: len(pair[0]), reverse=True)

    def redact(self, text: str) -> str:
        for value, name in self._env_secrets:
            if value in text:
                text = text.replace(value, f"[REDACTED:{name}]")
        return _PATTERNS.sub(_replace_match, text) if _may_hold_a_shape(text) else text

    def redact_value(self, value: Any) -> Any:
        """A copy of a JSON-like value with every string redacted (dict keys included); other values unchanged."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, dict):
            return {self.redact(str(k)): self._redact_item(str(k), v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.redact_value(item) for item in value]
        return value

    def _redact_item(self, key: str, value: Any) -> Any:
        if isinstance(value, str) and value and (key.lower() in _CREDENTIAL_KEYS or _SECRET_NAME.search(key)):
            return REDACTED
        return self.redact_value(value)


@cache
def default_redactor() -> Redactor:
    """The redactor for the environment this process started with, built once."""
    return Redactor()
