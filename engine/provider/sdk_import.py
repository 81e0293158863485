"""Importing the ``openai`` SDK without the half-second of type modules the engine never uses.

``import openai`` runs ``openai/types/__init__.py`` and the ``__init__`` of every ``openai.types`` sub-package the
client touches (``openai.types.responses`` alone is a quarter of a second): hundreds of pydantic models, built at
import, for APIs this engine does not call (it reads the Chat Completions stream raw, see ``stream_reader``). The
client itself needs only a few of their modules.

``import_openai`` imports the SDK with each ``openai.types`` package made lazy: the package module exists at once,
with its ``__path__``, so ``openai.types.chat.completion_create_params`` and the like import on their own as
usual; the package's own ``__init__`` runs, whole and unchanged, the first time anything asks the package for a name
it does not have yet (``openai.types.ChatCompletion``, ``from openai.types.chat import *``). Nothing behaves
differently, it only happens later or never. If the SDK is already imported, or its layout is not what this
expects, the ordinary import runs.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import threading
import types
from collections.abc import Sequence
from typing import Any

LAZY_ROOT = "openai.types"

_installed = False
_lock = threading.Lock()


def import_openai() -> Any:
    """The ``openai`` module, imported with its type packages lazy (once per process; thread-safe)."""
    global _installed
    with _lock:
        if "openai" not in sys.modules and not _installed:
            sys.meta_path.insert(0, LazyTypesFinder())
            _installed = True
        return importlib.import_module("openai")


class LazyPackage(types.ModuleType):
    """A package whose ``__init__`` has not run yet: a missing name imports the submodule of that name if there is
    one, else runs the ``__init__`` (once) and looks again."""

    def __getattr__(self, name: str) -> Any:
        spec = self.__spec__
        if not name.startswith("__") and _has_submodule(spec.submodule_search_locations or (), name):
            return importlib.import_module(f"{self.__name__}.{name}")
        self._run_init()
        return getattr(self, name)

    def __dir__(self) -> list[str]:
        self._run_init()
        return list(self.__dict__)

    def _run_init(self) -> None:
        loader = self.__spec__.loader
        if not isinstance(loader, _DeferredInitLoader):
            raise AttributeError(self.__name__)
        self.__class__ = types.ModuleType  # from now on an ordinary module, whatever happens below
        self.__loader__ = self.__spec__.loader = loader.real
        loader.real.exec_module(self)


class _DeferredInitLoader(importlib.abc.Loader):
    def __init__(self, real: importlib.abc.Loader) -> None:
        self.real = real

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return None  # the default module, with __path__ and __spec__ set from the spec

    def exec_module(self, module: types.ModuleType) -> None:
        module.__class__ = LazyPackage


class LazyTypesFinder(importlib.abc.MetaPathFinder):
    """Finds ``openai.types`` and its sub-packages as ``LazyPackage``s; every other module, and every plain module
    under ``openai.types``, is left to the ordinary finders."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != LAZY_ROOT and not fullname.startswith(LAZY_ROOT + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.submodule_search_locations is None or spec.loader is None:
            return spec
        if not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _DeferredInitLoader(spec.loader)  # type: ignore[arg-type]
        return spec


def _has_submodule(locations: Sequence[str], name: str) -> bool:
    for location in locations:
        candidate = os.path.join(location, name)
        if os.path.isfile(candidate + ".py") or os.path.isfile(os.path.join(candidate, "__init__.py")):
            return True
    return False
