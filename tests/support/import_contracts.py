"""An import-linter contract type that import-linter lacks: no import cycle of more than two modules.

Two modules that import each other (a class and its helper under ``TYPE_CHECKING``, say) are allowed; a circle
through three or more is what makes a package impossible to read or split one module at a time. The built-in
``acyclic_siblings`` forbids every cycle between sibling packages, two-module ones included, so it cannot say this.

In ``pyproject.toml``::

    [tool.importlinter]
    contract_types = ["short_cycles_only: tests.support.import_contracts.ShortCyclesOnlyContract"]

    [[tool.importlinter.contracts]]
    type = "short_cycles_only"
    containers = ["engine", "coder_tui"]

A cycle of more than two modules exists exactly when, among the modules of the containers, (a) some import
``a -> b`` has no import back ``b -> a`` but a chain from ``b`` leads back to ``a`` (the shortest such chain and
the import make the cycle), or (b) the pairs that import each other form a ring (``a <-> b <-> c <-> a``).
"""

from __future__ import annotations

from collections import deque

import grimp
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck

SHOWN_CYCLES = 20


def long_cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[tuple[str, ...]]:
    """Each cycle of more than two of ``modules`` that (a) or (b) above finds, as its modules in import order
    (the last imports the first), sorted and without repeats."""
    imports = {module: graph.find_modules_directly_imported_by(module) & modules for module in sorted(modules)}
    found: set[tuple[str, ...]] = set()
    for importer, imported_modules in imports.items():
        for imported in sorted(imported_modules - {importer}):
            if importer in imports[imported]:
                continue
            chain = graph.find_shortest_chain(imported, importer)
            if chain is not None and set(chain) <= modules:
                found.add(_rotated((importer, *chain[:-1])))
    found.update(_rings(imports))
    return sorted(found)


def _rings(imports: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """Rings of pairs that import each other: a pair that joins two modules already joined by such pairs closes
    one (union-find over the pairs)."""
    parent: dict[str, str] = {}

    def root(module: str) -> str:
        while parent.setdefault(module, module) != module:
            module = parent[module]
        return module

    pairs = sorted((a, b) for a, targets in imports.items() for b in targets if a < b and a in imports.get(b, ()))
    joined: dict[str, set[str]] = {}
    rings = []
    for a, b in pairs:
        if root(a) == root(b):
            rings.append(_rotated(_path(joined, b, a)))
        parent[root(a)] = root(b)
        joined.setdefault(a, set()).add(b)
        joined.setdefault(b, set()).add(a)
    return rings


def _path(joined: dict[str, set[str]], start: str, goal: str) -> tuple[str, ...]:
    """The modules from ``start`` to ``goal`` through pairs already joined (a breadth-first walk)."""
    came_from = {start: start}
    queue = deque([start])
    while goal not in came_from:
        module = queue.popleft()
        for neighbour in sorted(joined[module] - came_from.keys()):
            came_from[neighbour] = module
            queue.append(neighbour)
    path = [goal]
    while path[-1] != start:
        path.append(came_from[path[-1]])
    return tuple(path)


def _rotated(cycle: tuple[str, ...]) -> tuple[str, ...]:
    """The same cycle, starting at its first module in sorted order (so a cycle found twice is one)."""
    first = cycle.index(min(cycle))
    return cycle[first:] + cycle[:first]


class ShortCyclesOnlyContract(Contract):
    """No import cycle of more than two modules among the modules of ``containers`` (the containers and all their
    descendants)."""

    type_name = "short_cycles_only"

    containers = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        modules: set[str] = set()
        for container in self.containers:  # type: ignore[attr-defined]
            modules |= {container, *graph.find_descendants(container)}
        cycles = long_cycles(graph, modules)
        return ContractCheck(kept=not cycles, metadata={"cycles": cycles})

    def render_broken_contract(self, check: ContractCheck) -> None:
        cycles = check.metadata["cycles"]
        output.print_error(f"{len(cycles)} import cycles of more than two modules (each module imports the next, "
                           "the last the first):")
        output.new_line()
        for cycle in cycles[:SHOWN_CYCLES]:
            output.print_error(f"- {' -> '.join(cycle)}")
        if len(cycles) > SHOWN_CYCLES:
            output.print_error(f"(and {len(cycles) - SHOWN_CYCLES} more)")
        output.new_line()
