"""Garbage collection is paced (issue 3 item 11): full passes wait while an input runs, run at quiet moments, and
what survives them is frozen; every few quiet moments everything is unfrozen and collected once."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from coder_tui.runtime.gc_pacing import CollectionPacer


class Node:
    """An object in a reference cycle: only the cycle collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture(autouse=True)
def python_defaults() -> Iterator[None]:
    thresholds = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*thresholds)
    gc.unfreeze()


def test_full_collections_wait_while_an_input_runs_and_until_the_next_quiet_moment() -> None:
    pacer = CollectionPacer(full_every=100)
    pacer.busy()
    assert gc.get_threshold()[:2] == (700, 10) and gc.get_threshold()[2] >= 100_000
    pacer.idle()
    assert gc.get_threshold()[2] >= 100_000  # not at the end of the input, when the user reads and types
    garbage = weakref.ref(Node())
    pacer.quiet()
    assert garbage() is None and gc.get_threshold() == (700, 10, 10)


def test_closing_switches_full_collections_back_on() -> None:
    pacer = CollectionPacer()
    pacer.busy()
    pacer.close()
    assert gc.get_threshold() == (700, 10, 10)


def test_no_collection_at_a_quiet_moment_that_comes_after_the_next_input_started() -> None:
    pacer = CollectionPacer(full_every=100)
    pacer.busy()
    garbage = weakref.ref(Node())
    pacer.quiet()
    assert garbage() is not None and gc.get_freeze_count() == 0
    pacer.idle()
    pacer.quiet()
    assert garbage() is None


def test_a_quiet_moment_collects_then_freezes_the_survivors() -> None:
    pacer = CollectionPacer(full_every=100)
    garbage = weakref.ref(Node())
    survivor = Node()
    pacer.quiet()
    assert garbage() is None  # collected
    assert gc.get_freeze_count() > 0 and survivor not in gc.get_objects()  # frozen: no longer walked


def test_every_few_quiet_moments_frozen_cycles_are_freed() -> None:
    pacer = CollectionPacer(full_every=2)
    node = Node()
    pacer.quiet()  # freezes ``node``
    dropped = weakref.ref(node)
    del node
    gc.collect()
    assert dropped() is not None  # a frozen cycle is never collected...
    pacer.quiet()  # ...until the periodic full collection
    assert dropped() is None


def test_settle_freezes_without_a_collection_and_the_next_quiet_moment_collects() -> None:
    """Issue 14: start-up's objects are frozen at once (no pass over them while keys are typed); garbage made
    before stays until the next quiet moment, which collects it."""
    pacer = CollectionPacer(full_every=1)
    garbage = Node()
    alive = weakref.ref(garbage)
    del garbage
    passes: list[str] = []
    gc.callbacks.append(lambda phase, info: passes.append(phase))
    try:
        frozen_before = gc.get_freeze_count()
        pacer.settle()
        assert gc.get_freeze_count() > frozen_before
        assert passes == []  # frozen, not collected
        assert alive() is not None
        pacer.quiet()  # full_every=1: unfreezes and collects
        assert alive() is None
    finally:
        gc.callbacks.pop()


def test_a_quiet_moment_with_busy_keys_collects_nothing_and_the_input_that_starts_next_catches_up() -> None:
    """Issue 32: a user typing the next request while an answer is read never rests the keys. No pass runs while
    they type (after a long answer it is a long pause), but it is owed, and the next input's start runs it: the
    pass over everything too when due, which frees a frozen cycle."""
    pacer = CollectionPacer(full_every=2)
    node = Node()
    pacer.quiet()  # freezes ``node``
    dropped = weakref.ref(node)
    del node
    young = weakref.ref(Node())
    pacer.quiet(keys_idle=False)
    pacer.quiet(keys_idle=False)
    assert young() is not None and dropped() is not None and pacer.owed  # nothing ran, however many go by
    pacer.busy()
    pacer.catch_up()  # at the next input's start: the full pass was due
    assert young() is None and dropped() is None and not pacer.owed
    assert gc.get_threshold()[2] >= 100_000  # the input runs on with full collections deferred
    pacer.catch_up()  # nothing owed: nothing runs
    assert not pacer.owed


def test_an_owed_pass_runs_at_the_first_quiet_moment_the_keys_rest() -> None:
    pacer = CollectionPacer(full_every=100)
    young = weakref.ref(Node())
    pacer.quiet(keys_idle=False)
    assert young() is not None and pacer.owed
    pacer.quiet(keys_idle=True)
    assert young() is None and not pacer.owed
