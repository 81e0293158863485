"""Live reload of the skill folders (SPEC 16) with watchfiles' ``awatch``.

A root that does not exist yet (no ``.coder/skills/`` in a fresh project) cannot be watched itself, so its parent is
watched instead until it appears, and the set of watched folders is re-derived whenever the watcher wakes: on a change,
or after ``recheck_s`` of quiet. Only changes that can alter the catalog pass the filter: a skill folder appearing,
vanishing or being renamed, and a ``SKILL.md`` changing; writes to the session files beside ``.coder/skills/`` do not.

watchfiles is imported here, inside the loop, so that building an orchestrator never loads it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from engine.skills.discovery import SkillRoot
from engine.skills.skill import SKILL_FILE

log = logging.getLogger(__name__)

# How long the watcher sleeps without changes before it re-derives what to watch (a missing root may have appeared).
RECHECK_S = 1.0


def watch_targets(roots: Sequence[SkillRoot]) -> tuple[Path, ...]:
    """For each root, the root itself when it is a folder, else its parent when that is one, else nothing."""
    targets: list[Path] = []
    for root in roots:
        for candidate in (root.path, root.path.parent):
            if candidate.is_dir():
                if candidate not in targets:
                    targets.append(candidate)
                break
    return tuple(targets)


def changes_skills(roots: Sequence[SkillRoot], path: str) -> bool:
    """Whether a change at ``path`` can change what discovery finds under ``roots``."""
    changed = Path(path)
    for root in roots:
        if changed == root.path:
            return True
        if changed.is_relative_to(root.path):
            parts = changed.relative_to(root.path).parts
            return len(parts) == 1 or (len(parts) == 2 and parts[1] == SKILL_FILE)
    return False


async def watch_skill_roots(
    roots: Sequence[SkillRoot],
    reload: Callable[[], Awaitable[object]],
    stop: asyncio.Event,
    watching: asyncio.Event,
    recheck_s: float = RECHECK_S,
) -> None:
    """Calls ``reload`` after every relevant change until ``stop`` is set.

    ``watching`` is set once the folders are really watched. ``reload`` is also called then, and whenever the watched
    folders change, because a change made while no watcher was in place would otherwise be missed.
    """
    from watchfiles import awatch

    def relevant(_change: object, path: str) -> bool:
        return changes_skills(roots, path)

    while not stop.is_set():
        targets = watch_targets(roots)
        if not targets:
            # Nothing to watch yet: look again later (the first pass of a new watcher reloads).
            watching.set()
            await _sleep_unless(stop, recheck_s)
            continue
        started = False
        try:
            async for changes in awatch(
                *targets,
                watch_filter=relevant,
                stop_event=stop,
                rust_timeout=max(1, round(recheck_s * 1000)),
                yield_on_timeout=True,
            ):
                moved = watch_targets(roots) != targets
                if changes or moved or not started:
                    await reload()
                if not started:
                    started = True
                    watching.set()
                if moved:
                    break
        except FileNotFoundError:
            # A watched folder vanished between the check and the watcher's start: derive the targets again.
            await _sleep_unless(stop, recheck_s)


async def _sleep_unless(stop: asyncio.Event, seconds: float) -> None:
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        pass
