"""A generic JSON codec for the protocol's frozen dataclasses: the engine's events, the interaction requests and
answers, and the protocol's own commands and replies.

Nothing here lists an event by name. A dataclass is encoded as ``{"type": <class name>, <field>: <value>...}``; the
decoder finds the class by walking the type hints of its roots (the ``Event`` union, the request types...) once, so
a dataclass another module adds to ``Event`` crosses the pipe with no change here. Field values are rebuilt from
the field's type hint: enums from their value, tuples from lists, nested dataclasses from their tagged dicts.

``engine.messages.Message`` (pydantic) travels as its session-file record tagged ``"Message"`` and is decoded by a
factory: ``MessageRecord.from_record`` by default, so the UI process never imports pydantic.

Fields typed ``Any`` (a tool's arguments, a tool call's result) carry plain JSON both ways: a dataclass put there is
encoded but comes back as its dict.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
import typing
from collections.abc import Callable, Iterable
from enum import Enum
from pathlib import PurePath
from typing import Any, Literal, Union, get_args, get_origin

from engine.protocol.records import MessageRecord

MESSAGE_TAG = "Message"


class ProtocolError(ValueError):
    """A line that is not a message of this protocol (bad JSON, an unknown type, a missing field)."""


class Codec:
    def __init__(
        self,
        roots: Iterable[Any],
        *,
        message_from_record: Callable[[dict[str, Any]], Any] = MessageRecord.from_record,
    ) -> None:
        """``roots``: dataclasses or unions of them; every dataclass reachable through their fields is known."""
        self._message_from_record = message_from_record
        self._roots = tuple(roots)
        self._classes: dict[str, type] = {}
        self._fields: dict[type, list[tuple[str, Any]]] = {}
        self._known = False

    @property
    def types(self) -> dict[str, type]:
        """Every dataclass this codec decodes, by its tag."""
        self._know()
        return dict(self._classes)

    def _know(self) -> None:
        """Walks the roots' type hints once, at the first decode (not at import: the UI imports this before its
        first frame)."""
        if not self._known:
            for root in self._roots:
                self._register(root)
            self._known = True

    # -- encode ---------------------------------------------------------------------------------------------------
    def dumps(self, value: Any) -> str:
        """One line of JSON (no newline inside: JSON escapes them)."""
        return json.dumps(self.encode(value), ensure_ascii=False, separators=(",", ":"))

    def encode(self, value: Any) -> Any:
        if value is None or isinstance(value, (bool, int, float)) and not isinstance(value, Enum):
            return value
        if isinstance(value, Enum):
            return value.value
        if isinstance(value, str):
            return value
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            if isinstance(value, MessageRecord):
                return {"type": MESSAGE_TAG, **value.to_record()}
            data = {"type": type(value).__name__}
            for item in dataclasses.fields(value):
                data[item.name] = self.encode(getattr(value, item.name))
            return data
        if isinstance(value, dict):
            return {str(key): self.encode(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.encode(item) for item in value]
        if isinstance(value, PurePath):
            return str(value)
        if type(value).__name__ == MESSAGE_TAG and hasattr(value, "to_record"):
            return {"type": MESSAGE_TAG, **value.to_record()}
        raise TypeError(f"{type(value).__name__} cannot cross the engine protocol")

    # -- decode ---------------------------------------------------------------------------------------------------
    def loads(self, line: str | bytes) -> Any:
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ProtocolError(f"not JSON: {exc.msg}") from None
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise ProtocolError("a protocol message is a JSON object with a 'type'")
        return self.decode(data)

    def decode(self, data: dict[str, Any]) -> Any:
        self._know()
        tag = data.get("type")
        if tag == MESSAGE_TAG:
            return self._message_from_record({k: v for k, v in data.items() if k != "type"})
        cls = self._classes.get(tag) if isinstance(tag, str) else None
        if cls is None:
            raise ProtocolError(f"unknown message type {tag!r}")
        return self._build(cls, data)

    def _build(self, cls: type, data: dict[str, Any]) -> Any:
        values = {}
        for name, hint in self._fields[cls]:
            if name in data:
                values[name] = self._coerce(data[name], hint)
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise ProtocolError(f"bad {cls.__name__}: {exc}") from None

    def _coerce(self, value: Any, hint: Any) -> Any:
        if value is None or hint is Any:
            return value
        origin = get_origin(hint)
        if origin is Union or origin is types.UnionType:
            return self._coerce_union(value, [arg for arg in get_args(hint) if arg is not type(None)])
        if origin is Literal:
            return value
        if origin is tuple:
            args = get_args(hint)
            if len(args) == 2 and args[1] is Ellipsis:
                return tuple(self._coerce(item, args[0]) for item in value)
            return tuple(self._coerce(item, arg) for item, arg in zip(value, args, strict=False))
        if origin is list:
            (arg,) = get_args(hint) or (Any,)
            return [self._coerce(item, arg) for item in value]
        if origin is dict:
            arg = get_args(hint)[1] if get_args(hint) else Any
            return {key: self._coerce(item, arg) for key, item in value.items()}
        if hint is _MessageHint:
            return self.decode({**value, "type": MESSAGE_TAG})
        if isinstance(hint, type):
            if issubclass(hint, Enum):
                return hint(value)
            if dataclasses.is_dataclass(hint) and isinstance(value, dict):
                return self.decode(value) if "type" in value else self._build(hint, value)
        return value

    def _coerce_union(self, value: Any, members: list[Any]) -> Any:
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            if any(m is _MessageHint or dataclasses.is_dataclass(m) for m in members):
                return self.decode(value)
        for member in members:
            if isinstance(member, type) and issubclass(member, Enum):
                try:
                    return member(value)
                except ValueError:
                    continue
        if len(members) == 1:
            return self._coerce(value, members[0])
        for member in members:
            if get_origin(member) in (tuple, list, dict):
                return self._coerce(value, member)
        return value

    # -- the classes it knows ---------------------------------------------------------------------------------------
    def _register(self, hint: Any) -> None:
        origin = get_origin(hint)
        if origin is not None:
            for arg in get_args(hint):
                if arg is not Ellipsis:
                    self._register(arg)
            return
        if not (isinstance(hint, type) and dataclasses.is_dataclass(hint)) or hint in self._fields:
            return
        known = self._classes.setdefault(hint.__name__, hint)
        if known is not hint:
            raise TypeError(f"two protocol types are named {hint.__name__}: {known} and {hint}")
        hints = _type_hints(hint)
        self._fields[hint] = [(item.name, hints.get(item.name, Any)) for item in dataclasses.fields(hint)]
        for _, field_hint in self._fields[hint]:
            self._register(field_hint)


class _MessageHint:
    """Stands for ``engine.messages.Message`` in type hints, so resolving them never imports pydantic."""


def _type_hints(cls: type) -> dict[str, Any]:
    module = sys.modules[cls.__module__]
    return typing.get_type_hints(cls, globalns=vars(module), localns={MESSAGE_TAG: _MessageHint})
