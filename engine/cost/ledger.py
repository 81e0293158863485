"""The spend ledger (SPEC 27): one JSON line per priced request in ``spend.jsonl`` beside the user's config, so
``/cost`` can say what today cost across every session and folder, and a resumed session keeps its spend.

A line holds the time (UTC), the session, the model and the cost; never a prompt, a key or an address.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

log = logging.getLogger(__name__)

LEDGER_FILE = "spend.jsonl"


def ledger_path(env: Mapping[str, str] | None = None) -> Path:
    base = (env or {}).get("XDG_CONFIG_HOME") or os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "coder" / LEDGER_FILE


class SpendLedger:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._sessions: dict[str, Decimal] | None = None  # read once, then kept current

    def add(self, session_id: str, model: str, usd: Decimal, when: datetime | None = None) -> None:
        """Records one request's cost. A failure to write is logged: the session's total is still counted."""
        when = when or datetime.now(timezone.utc)
        totals = self._totals()
        totals[session_id] = totals.get(session_id, Decimal(0)) + usd
        line = json.dumps({"at": when.isoformat(), "session": session_id, "model": model, "usd": str(usd)})
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(line + "\n")
        except OSError as exc:
            log.warning("cannot record the spend in %s: %s", self.path, exc)

    def session(self, session_id: str) -> Decimal:
        return self._totals().get(session_id, Decimal(0))

    def since(self, start: datetime) -> Decimal:
        """What every session spent from ``start`` on (today: from local midnight)."""
        total = Decimal(0)
        for entry in self._entries():
            try:
                if datetime.fromisoformat(entry["at"]) >= start:
                    total += Decimal(entry["usd"])
            except (KeyError, ValueError, ArithmeticError, TypeError):
                continue
        return total

    def _totals(self) -> dict[str, Decimal]:
        if self._sessions is None:
            self._sessions = {}
            for entry in self._entries():
                try:
                    session, usd = str(entry["session"]), Decimal(entry["usd"])
                except (KeyError, ArithmeticError, TypeError):
                    continue
                self._sessions[session] = self._sessions.get(session, Decimal(0)) + usd
        return self._sessions

    def _entries(self) -> list[dict[str, str]]:
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        entries = []
        for line in lines:
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                entries.append(value)
        return entries


def local_midnight(now: datetime | None = None) -> datetime:
    """The start of today, local time, as an aware datetime."""
    local = (now or datetime.now(timezone.utc)).astimezone()
    return local.replace(hour=0, minute=0, second=0, microsecond=0)
