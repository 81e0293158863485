"""The fetch tool's view of the permission policy (SPEC 5): which hosts a redirect may go on to, and whether private
addresses may be reached. It asks the orchestrator's policy of the moment, which a config reload or a mode switch
replaces or changes."""

from __future__ import annotations

from collections.abc import Callable

from engine.modes import Mode
from engine.policy import PermissionPolicy


class PolicyFetchGate:
    def __init__(self, policy: Callable[[], PermissionPolicy], allow_private: Callable[[], bool]) -> None:
        self._policy = policy
        self._allow_private = allow_private

    def host_allowed(self, host: str) -> bool:
        return self._policy().fetch_host_allowed(host)

    def private_allowed(self) -> bool:
        return self._allow_private() or self._policy().mode is Mode.YOLO

    def address_denied(self, address: str) -> str | None:
        return self._policy().fetch_address_denied(address)
