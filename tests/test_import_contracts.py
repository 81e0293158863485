"""The contract that keeps import cycles to two modules (``tests/support/import_contracts.py``), on small graphs."""

from __future__ import annotations

import grimp

from tests.support.import_contracts import long_cycles


def graph_of(*imports: str) -> tuple[grimp.ImportGraph, set[str]]:
    """A graph of ``"a -> b"`` imports, and its modules."""
    graph = grimp.ImportGraph()
    for line in imports:
        importer, imported = line.split(" -> ")
        graph.add_import(importer=importer, imported=imported)
    return graph, set(graph.modules)


def test_a_circle_of_three_modules_is_found() -> None:
    assert long_cycles(*graph_of("p.b -> p.c", "p.a -> p.b", "p.c -> p.a")) == [("p.a", "p.b", "p.c")]


def test_two_modules_importing_each_other_are_allowed() -> None:
    assert long_cycles(*graph_of("p.a -> p.b", "p.b -> p.a", "p.b -> p.c")) == []


def test_pairs_that_import_each_other_in_a_chain_are_allowed() -> None:
    assert long_cycles(*graph_of("p.a -> p.b", "p.b -> p.a", "p.b -> p.c", "p.c -> p.b")) == []


def test_pairs_that_import_each_other_in_a_ring_are_found() -> None:
    pairs = ("p.a -> p.b", "p.b -> p.c", "p.c -> p.d", "p.d -> p.a")
    graph, modules = graph_of(*pairs, *(" -> ".join(reversed(pair.split(" -> "))) for pair in pairs))
    (ring,) = long_cycles(graph, modules)
    assert sorted(ring) == ["p.a", "p.b", "p.c", "p.d"]


def test_an_import_closing_a_long_circle_beside_a_pair_is_found() -> None:
    # a <-> b is allowed; c -> a with a -> ... -> c is not.
    found = long_cycles(*graph_of("p.a -> p.b", "p.b -> p.a", "p.b -> p.c", "p.c -> p.a"))
    assert found == [("p.a", "p.b", "p.c")]
