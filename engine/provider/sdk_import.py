"""Importing the ``openai`` SDK without the half-second of type modules the engine never uses.

``import openai`` runs ``openai/types/__init__.py`` and the ``__init__`` of every ``openai.types`` sub-package the
client touches (``openai.types.responses`` alone is a quarter of a second): hundreds of pydantic models, built at
import, for APIs this engine does not call (it reads the Chat Completions stream raw, see ``stream_reader``). The
client itself needs only a few of their modules.

``import_openai`` imports the SDK with each ``openai.types`` package made lazy: the package module exists at once,
with its ``__path__``, so ``openai.types.chat.completion_create_params`` and the like import on their own as
usual. A name the ``__init__`` re-exports from one of its modules (``from openai.types.chat import
ChatCompletionFunctionToolParam``, as the client itself does) imports that module alone, read off the ``__init__``'s
source; anything else asked of the package (``__all__``, ``dir()``, a name defined in the ``__init__`` itself) runs
the ``__init__``, whole and unchanged, first. The objects are the same ones; they are only made later, or never. If the SDK is already imported, or its layout is not what this
expects, the ordinary import runs.
"""

from __future__ import annotations

import ast
import functools
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
        if not name.startswith("__"):
            if _has_submodule(spec.submodule_search_locations or (), name):
                return importlib.import_module(f"{self.__name__}.{name}")
            source = _reexports(spec.origin).get(name)
            if source is not None:  # ``from .module import Name`` in the ``__init__``: that module alone
                module, original = source
                value = getattr(importlib.import_module(f"{self.__name__}.{module}"), original)
                setattr(self, name, value)
                return value
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


@functools.cache
def _reexports(init_path: str | None) -> dict[str, tuple[str, str]]:
    """What a package's ``__init__`` takes from its own modules: exported name -> (module, name in it), read from
    its source (``from .module import Name as Name``); empty if it cannot be read."""
    if init_path is None:
        return {}
    try:
        with open(init_path, encoding="utf-8") as file:
            tree = ast.parse(file.read(), init_path)
    except (OSError, SyntaxError, ValueError):
        return {}
    names: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = (node.module, alias.name)
    return names


def _has_submodule(locations: Sequence[str], name: str) -> bool:
    for location in locations:
        candidate = os.path.join(location, name)
        if os.path.isfile(candidate + ".py") or os.path.isfile(os.path.join(candidate, "__init__.py")):
            return True
    return False
