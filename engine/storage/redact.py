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
_KEYWORD_1, _KEYWORD_2, _KEYWORD_3, _KEYWORD_4 = _KEYWORDS
_LOOKALIKE_1, _LOOKALIKE_2, _LOOKALIKE_3, _LOOKALIKE_4 = _NON_ASCII_LOOKALIKES

# How many distinct dict keys a redactor remembers (keys of arbitrary tool arguments are not a fixed set).
_MAX_KEYS_KEPT = 1024


def _may_hold_a_shape(text: str) -> bool:
    """False when ``_PATTERNS`` cannot match: the same answer, at a fraction of the regex's cost (9 ms for a 100 KB
    file read, twice a call: its tool message and its audit row). A text holding a look-alike goes to the regex.
    Written out, not as ``any()`` over the tuples: most texts checked are a few words long, where the generators
    cost more than the searches."""
    if not text.isascii() and (
        _LOOKALIKE_1 in text or _LOOKALIKE_2 in text or _LOOKALIKE_3 in text or _LOOKALIKE_4 in text
    ):
        return True
    lowered = text.lower()
    return _KEYWORD_1 in lowered or _KEYWORD_2 in lowered or _KEYWORD_3 in lowered or _KEYWORD_4 in lowered


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
        # The keys of the dicts written are a few names, over and over: what each becomes, and whether its value
        # is a credential whatever it says.
        self._keys: dict[str, tuple[str, bool]] = {}

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
            redacted = {}
            for k, v in value.items():
                key = str(k)
                known = self._keys.get(key)
                if known is None:
                    known = (self.redact(key), key.lower() in _CREDENTIAL_KEYS or bool(_SECRET_NAME.search(key)))
                    if len(self._keys) < _MAX_KEYS_KEPT:
                        self._keys[key] = known
                redacted_key, credential = known
                redacted[redacted_key] = REDACTED if credential and isinstance(v, str) and v else self.redact_value(v)
            return redacted
        if isinstance(value, (list, tuple)):
            return [self.redact_value(item) for item in value]
        return value


@cache
def default_redactor() -> Redactor:
    """The redactor for the environment this process started with, built once."""
    return Redactor()
