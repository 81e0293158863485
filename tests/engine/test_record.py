"""``@record`` behaves as ``@dataclass(frozen=True)``: each check runs on a record and on the frozen dataclass of the
same fields, and expects the same outcome."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engine.record import record


@record
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    note: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class FrozenPoint:
    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    note: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


@record
class Empty:
    pass


@record
class Single:
    value: str


@record
class Holder:
    items: list[Any]


class Labelled(Point):
    """A plain subclass of a record."""


BOTH = pytest.mark.parametrize("cls", [Point, FrozenPoint], ids=["record", "frozen dataclass"])


@BOTH
def test_equality_compares_the_compared_fields_of_the_same_class(cls: type) -> None:
    assert cls(1, 2) == cls(1, 2)
    assert cls(1, 2) != cls(1, 3)
    assert cls(1, 2, note={"a": 1}) == cls(1, 2, note={"b": 2})  # compare=False
    assert cls(1, 2).__eq__((1, 2, (), {})) is NotImplemented
    assert (cls(1) == object()) is False


def test_records_of_another_class_are_never_equal() -> None:
    assert Point(1) != FrozenPoint(1)
    assert Labelled(1) != Point(1)
    assert Labelled(1) == Labelled(1)


@BOTH
def test_hash_follows_the_compared_fields(cls: type) -> None:
    assert hash(cls(1, 2)) == hash(cls(1, 2, note={"x": 1}))
    assert len({cls(1, 2), cls(1, 2), cls(2, 1)}) == 2


def test_hash_is_the_frozen_dataclass_hash() -> None:
    assert hash(Point(1, 2, ("a",))) == hash(FrozenPoint(1, 2, ("a",)))
    assert hash(Empty()) == hash(())
    assert hash(Single("s")) == hash(("s",))


def test_repr_is_the_dataclass_repr() -> None:
    assert repr(Point(1, 2, ("a",), {"hidden": 1})) == "Point(x=1, y=2, tags=('a',))"
    assert repr(FrozenPoint(1, 2, ("a",))).replace("FrozenPoint", "Point") == repr(Point(1, 2, ("a",)))
    assert repr(Empty()) == "Empty()"
    assert repr(Labelled(3)) == "Labelled(x=3, y=0, tags=())"


def test_a_record_that_holds_itself_does_not_recurse_in_repr() -> None:
    holder = Holder([])
    holder.items.append(holder)
    assert repr(holder) == "Holder(items=[...])"


@BOTH
def test_fields_can_be_neither_assigned_nor_deleted(cls: type) -> None:
    point = cls(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.other = 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        del point.x
    assert point.x == 1 and not hasattr(point, "other")


def test_a_plain_subclass_is_frozen_too() -> None:
    labelled = Labelled(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        labelled.x = 2


@BOTH
def test_the_dataclass_tools_work(cls: type) -> None:
    point = cls(1, 2, ("a",))
    assert [f.name for f in dataclasses.fields(point)] == ["x", "y", "tags", "note"]
    assert dataclasses.asdict(point) == {"x": 1, "y": 2, "tags": ("a",), "note": {}}
    moved = dataclasses.replace(point, y=5)
    assert moved == cls(1, 5, ("a",)) and point.y == 2
    assert dataclasses.is_dataclass(point)
    match point:
        case cls(1, y):  # __match_args__
            assert y == 2
        case _:
            pytest.fail("no match")


@BOTH
def test_defaults_and_factories_are_the_dataclass_ones(cls: type) -> None:
    first, second = cls(1), cls(2)
    assert first.y == 0 and first.tags == ()
    assert first.note == {} and first.note is not second.note


@BOTH
def test_pickle_and_copy_keep_the_value_and_stay_frozen(cls: type) -> None:
    point = cls(1, 2, ("a",), {"n": 1})
    for made in (pickle.loads(pickle.dumps(point)), copy.copy(point), copy.deepcopy(point)):
        assert made == point and made.note == {"n": 1}
        with pytest.raises(dataclasses.FrozenInstanceError):
            made.x = 3


def test_a_record_may_not_define_what_records_share() -> None:
    with pytest.raises(TypeError, match="defines __eq__"):

        @record
        class Own:
            value: int

            def __eq__(self, other: object) -> bool:
                return True


def test_the_project_defines_its_frozen_classes_as_records() -> None:
    """A frozen dataclass defined at import costs what ``record`` saves; the engine and the UI use ``record``."""
    root = Path(__file__).resolve().parents[2]
    frozen = [
        str(path.relative_to(root))
        for package in ("engine", "coder_tui")
        for path in (root / package).rglob("*.py")
        if re.search(r"^\s*@dataclass\(frozen=True\)", path.read_text(encoding="utf-8"), re.MULTILINE)
    ]
    assert frozen == []


def test_a_field_init_does_not_take_needs_a_default_factory() -> None:
    """``__init__`` sets such a field only from a factory; left to a class default, it could be set once later."""
    for default in ({}, {"default": 3}):
        with pytest.raises(TypeError, match="has init=False without a default_factory"):

            @record
            class Unset:
                value: int = field(init=False, **default)

    @record
    class Made:
        values: list[int] = field(init=False, default_factory=list)

    made = Made()
    assert made.values == []
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.values = [1]
