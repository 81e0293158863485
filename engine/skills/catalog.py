"""The skills of a session (SPEC 16): discovered at start-up, reloaded while the app runs when their folders change.

The catalog is the one object the rest of the engine asks about skills: the ``skill`` tool looks skills up in it,
the system prompt lists them, ``/skills`` shows them with their source and problems. Listeners hear of every reload
that changed something, so a front end can say so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path

from engine.background import in_background_thread
from engine.skills.discovery import SkillRoot, SkillSet, discover, skill_roots
from engine.skills.skill import Skill, SkillProblem, SkillSource
from engine.skills.watcher import RECHECK_S, watch_skill_roots

log = logging.getLogger(__name__)

# How long ``stop`` waits for the watcher thread to notice the stop event before cancelling it outright.
_STOP_TIMEOUT_S = 5.0

Listener = Callable[["SkillCatalog"], None]


class SkillCatalog:
    def __init__(
        self, roots: Sequence[SkillRoot], *, recheck_s: float = RECHECK_S, project_trusted: bool = True
    ) -> None:
        """Discovers the skills under ``roots`` (highest priority first) right away. ``recheck_s``: how often a
        quiet watcher looks again for folders that did not exist yet. ``project_trusted``: whether the project's
        skills may be used (SPEC 19; ``set_project_trusted`` changes it)."""
        self.roots: tuple[SkillRoot, ...] = tuple(roots)
        self._recheck_s = recheck_s
        self.project_trusted = project_trusted
        self._set = discover(self.roots, project_trusted=project_trusted)
        self._listeners: list[Listener] = []
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._watching = asyncio.Event()
        self.watch_error: str | None = None

    @classmethod
    def for_workspace(
        cls, workspace: Path, env: Mapping[str, str] | None = None, *, project_trusted: bool = True
    ) -> SkillCatalog:
        """The user, built-in and project skills of ``workspace``."""
        return cls(skill_roots(workspace, env), project_trusted=project_trusted)

    def set_project_trusted(self, trusted: bool) -> None:
        """The folder's trust changed (``--trust``, ``/trust``): its skills come or go at once."""
        if trusted != self.project_trusted:
            self.project_trusted = trusted
            self.reload()

    # -- what callers read ----------------------------------------------------------------------------------------
    @property
    def skills(self) -> tuple[Skill, ...]:
        """The usable skills, sorted by name."""
        return self._set.skills

    @property
    def problems(self) -> tuple[SkillProblem, ...]:
        return self._set.problems

    def names(self) -> list[str]:
        return [skill.name for skill in self._set.skills]

    def get(self, name: str) -> Skill | None:
        return next((skill for skill in self._set.skills if skill.name == name), None)

    def problems_of(self, name: str) -> list[SkillProblem]:
        """The problems of skill folders called ``name``: why a skill the user expects is not there."""
        return [problem for problem in self._set.problems if problem.path.parent.name == name]

    # -- reloading ------------------------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Calls ``listener(catalog)`` after each reload that changed the skills or the problems; returns an
        unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def reload(self) -> bool:
        """Discovers again now; True when something changed (and listeners were told)."""
        return self._apply(discover(self.roots, project_trusted=self.project_trusted))

    async def areload(self) -> bool:
        """``reload`` with the file reading off the event loop."""
        found = partial(discover, self.roots, project_trusted=self.project_trusted)
        return self._apply(await in_background_thread(found))

    @property
    def watching(self) -> asyncio.Event:
        """Set once the folders are really being watched (and a reload has caught anything changed before)."""
        return self._watching

    def start(self) -> None:
        """Starts watching the project and user folders in a task of the running loop; the built-in set is part of
        the installed program and does not change while it runs. Calling it twice is harmless."""
        if self._task is not None and not self._task.done():
            return
        watched = [root for root in self.roots if root.source is not SkillSource.BUILTIN]
        self._stop = asyncio.Event()
        self._watching = asyncio.Event()
        self.watch_error = None
        self._task = asyncio.create_task(
            watch_skill_roots(watched, self.areload, self._stop, self._watching, self._recheck_s),
            name="skill-watcher",
        )
        self._task.add_done_callback(self._watcher_ended)

    async def stop(self) -> None:
        """Stops watching and waits for the watcher to end."""
        task, stop = self._task, self._stop
        if task is None or stop is None:
            return
        stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), _STOP_TIMEOUT_S)
        except TimeoutError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        except Exception:  # noqa: BLE001 - already recorded in watch_error by the done callback
            pass
        self._task = None

    def _watcher_ended(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            # Skills keep working as loaded; only live reload is lost. Say so rather than fail the app.
            self.watch_error = f"skill folders are no longer watched: {type(error).__name__}: {error}"
            log.warning(self.watch_error, exc_info=error)

    def _apply(self, found: SkillSet) -> bool:
        if found == self._set:
            return False
        self._set = found
        for listener in list(self._listeners):
            listener(self)
        return True
