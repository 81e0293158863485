"""``@record``: a frozen dataclass that is defined three times faster.

Python 3.11 makes each dataclass method by compiling its source: a frozen dataclass gets six (``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``), half a millisecond a class or more. The
engine defines some 170 of them as it starts (a quarter of the time its imports take on the way to a request typed
at launch), and the UI process about 50 (the protocol's messages) while the user may already be typing.

A record has only its ``__init__`` made by ``dataclasses``; the other five are shared by every record and behave as
the generated ones do:

- ``==`` compares the fields (those with ``compare=True``) of two records of the same class, else
  ``NotImplemented``; ``hash()`` hashes the same fields;
- ``repr()`` is ``Name(field=value, ...)`` over the fields with ``repr=True``;
- assigning or deleting an attribute raises ``dataclasses.FrozenInstanceError``: only ``__init__`` sets the fields,
  each once.

Everything else is the dataclass's: ``dataclasses.fields``, ``replace``, ``asdict``, ``match`` with
``__match_args__``, pickling and copying. Making one costs a little more (its ``__init__`` sets each field through
the shared ``__setattr__``: about 0.2 microseconds for four fields).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

T = TypeVar("T")

_SHARED = ("__eq__", "__hash__", "__repr__", "__setattr__", "__delattr__")

# Per record class: its compared fields' values as a tuple, its hashed fields' values, the fields repr shows, and
# the names of all its fields.
_compared: dict[type, Callable[[Any], tuple[Any, ...]]] = {}
_hashed: dict[type, Callable[[Any], tuple[Any, ...]]] = {}
_shown: dict[type, tuple[str, ...]] = {}
_fields: dict[type, frozenset[str]] = {}


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[T]) -> type[T]:
    """Makes ``cls`` a dataclass that behaves as ``@dataclass(frozen=True)`` (see the module's docstring)."""
    clashes = [name for name in _SHARED if name in cls.__dict__]
    if clashes:
        raise TypeError(f"record {cls.__qualname__} defines {', '.join(clashes)}: a record's are shared")
    made = dataclasses.dataclass(eq=False, repr=False)(cls)
    fields = dataclasses.fields(made)
    unset = [f.name for f in fields if not f.init and f.default_factory is dataclasses.MISSING]
    if unset:
        # ``__init__`` leaves such a field to its class default (or unset), and the shared ``__setattr__`` would then
        # let it be set once: a record's ``init=False`` field needs a ``default_factory``, which ``__init__`` runs.
        raise TypeError(f"record {cls.__qualname__}: field {', '.join(unset)} has init=False without a default_factory")
    _compared[made] = _values_of(f.name for f in fields if f.compare)
    _hashed[made] = _values_of(f.name for f in fields if (f.compare if f.hash is None else f.hash))
    _shown[made] = tuple(f.name for f in fields if f.repr)
    _fields[made] = frozenset(f.name for f in fields)
    made.__eq__ = _eq  # type: ignore[method-assign,assignment]
    made.__hash__ = _hash  # type: ignore[method-assign,assignment]
    made.__repr__ = _repr  # type: ignore[method-assign,assignment]
    made.__setattr__ = _setattr  # type: ignore[method-assign,assignment]
    made.__delattr__ = _delattr  # type: ignore[method-assign,assignment]
    return made


def _values_of(names: Iterable[str]) -> Callable[[Any], tuple[Any, ...]]:
    chosen = tuple(names)
    if len(chosen) > 1:
        return attrgetter(*chosen)  # the values as a tuple, at C speed
    if chosen:
        single = attrgetter(chosen[0])
        return lambda value: (single(value),)
    return lambda value: ()


def _of(table: dict[type, T], cls: type) -> T:
    """The entry of ``cls``, or of the record it derives from (a plain subclass of a record is one too)."""
    try:
        return table[cls]
    except KeyError:
        entry = next(table[base] for base in cls.__mro__ if base in table)
        table[cls] = entry
        return entry


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        values = _of(_compared, self.__class__)
        return values(self) == values(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(_of(_hashed, self.__class__)(self))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _of(_shown, self.__class__))
    return f"{self.__class__.__qualname__}({shown})"


def _setattr(self: Any, name: str, value: Any) -> None:
    # ``__init__`` sets each field once; nothing else may set anything.
    values = self.__dict__
    if name in values or name not in _of(_fields, self.__class__):
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
    values[name] = value


def _delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
