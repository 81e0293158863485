"""The import cycles of the product: each circle of modules that import each other (a strongly connected part of
the import graph of `engine` and `coder_tui`, as import-linter's grimp reads it), its size, and for each import in
it that closes no cycle of two, the shortest cycle through it (how the circle is held together).

    python benchmarks/import_cycles.py [--no-type-checking]

`--no-type-checking` leaves out imports made only under `if TYPE_CHECKING:` (annotations).
"""

from __future__ import annotations

import argparse
from collections import deque

import grimp


def circles(graph: grimp.ImportGraph, modules: set[str]) -> list[set[str]]:
    """The strongly connected parts of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & modules)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    part = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        part.add(member)
                        if member == node:
                            break
                    if len(part) > 1:
                        found.append(part)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child) & modules))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def shortest_path(graph: grimp.ImportGraph, start: str, goal: str, within: set[str]) -> list[str]:
    seen = {start: start}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path = [goal]
            while path[-1] != start:
                path.append(seen[path[-1]])
            return path[::-1]
        for child in sorted(graph.find_modules_directly_imported_by(node) & within):
            if child not in seen:
                seen[child] = node
                queue.append(child)
    return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-type-checking", action="store_true", help="leave out imports under TYPE_CHECKING")
    args = parser.parse_args()
    graph = grimp.build_graph("engine", "coder_tui", exclude_type_checking_imports=args.no_type_checking,
                              cache_dir=None)
    parts = sorted(circles(graph, set(graph.modules)), key=len, reverse=True)
    print(f"{len(parts)} circles of modules importing each other; sizes {[len(part) for part in parts]}")
    for part in parts:
        longer: set[tuple[str, ...]] = set()
        for importer in sorted(part):
            for imported in sorted(graph.find_modules_directly_imported_by(importer) & part):
                cycle = [importer, *shortest_path(graph, imported, importer, part)[:-1]]
                if len(cycle) > 2:
                    turn = cycle.index(min(cycle))
                    longer.add(tuple(cycle[turn:] + cycle[:turn]))
        print(f"\n{len(part)} modules, {len(longer)} shortest cycles of more than two modules:")
        print("  " + " ".join(sorted(part)))
        for cycle in sorted(longer, key=lambda c: (len(c), c)):
            print(f"  ({len(cycle)}) " + " -> ".join(cycle))


if __name__ == "__main__":
    main()
