"""Plain-text formatting shared by the widgets: token counts, durations, paths and tool results.

Pure functions with no Textual import, so they are tested on their own and the widgets stay about layout.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

# Keys of a tool result shown as the "head" line (not as body blocks); everything else is the body.
_HEAD_KEYS = ("path", "command", "exit_code", "bytes", "created", "count", "truncated")
_BASH_KEYS = ("command", "exit_code", "stdout", "stderr")


def format_tokens(count: int) -> str:
    """``950`` -> ``950``, ``12_345`` -> ``12.3k``, ``128_000`` -> ``128k``, ``1_200_000`` -> ``1.2M``."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        value = count / 1000
        return f"{value:.0f}k" if value >= 100 or value == int(value) else f"{value:.1f}k"
    value = count / 1_000_000
    return f"{value:.0f}M" if value == int(value) else f"{value:.1f}M"


def format_context(used: int, window: int) -> str:
    """What the status line says about the context: ``12.3k / 128k (10%)``."""
    percent = round(100 * used / window) if window > 0 else 0
    return f"{format_tokens(used)} / {format_tokens(window)} ({percent}%)"


def format_duration(duration_ms: float) -> str:
    """``850`` -> ``850ms``, ``1234`` -> ``1.2s``, ``65_000`` -> ``1m 05s``."""
    if duration_ms < 1000:
        return f"{duration_ms:.0f}ms"
    seconds = duration_ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}m {rest:02d}s"


def friendly_time(stamp: str, now: datetime) -> str:
    """A stored ISO time as a person reads it in a list: ``today 09:31``, ``yesterday 18:02``, ``2026-11-19 14:05``.

    ``now`` is an aware datetime in the zone to show (the caller's local time; tests pass a fixed one). A stamp
    without a zone is UTC, as the store writes; one that does not parse is shown as it is.
    """
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    local = moment.astimezone(now.tzinfo)
    clock = local.strftime("%H:%M")
    if local.date() == now.date():
        return f"today {clock}"
    if local.date() == (now - timedelta(days=1)).date():
        return f"yesterday {clock}"
    return f"{local:%Y-%m-%d} {clock}"


def session_details(row: dict[str, Any], now: datetime) -> str:
    """What the session lists say about a stored session beside its title: ``today 09:31 · 12 messages · a1b2c3``,
    and where it was made when that was not the full screen (``· headless``, ``· editor``)."""
    count = int(row.get("message_count") or 0)
    when = friendly_time(str(row.get("updated_at", "")), now)
    origin = ORIGIN_NAMES.get(str(row.get("origin") or "tui"), "")
    return f"{when} · {count} message{'' if count == 1 else 's'} · {row.get('id', '')}" + (f" · {origin}" if origin else "")


# How the session lists name where a session was made (the full screen's own need no mark).
ORIGIN_NAMES = {"headless": "headless", "acp": "editor"}


def display_path(path: Path, home: Path | None = None) -> str:
    """A path as the prompt line shows it: under the home folder it starts with ``~``."""
    home = Path.home() if home is None else home
    path = path.resolve()
    try:
        relative = path.relative_to(home.resolve())
    except ValueError:
        return str(path)
    return "~" if str(relative) == "." else f"~/{relative.as_posix()}"


def format_cost(usd: float) -> str:
    """Dollars as the status line shows them: cents once there are any, else enough digits to see a fraction."""
    return f"${usd:.2f}" if usd >= 1 else f"${usd:.4f}"


def one_line(text: str, width: int) -> str:
    """The first line of ``text``, cut to ``width`` cells with an ellipsis: for summaries and list rows."""
    first, _, rest = text.strip().partition("\n")
    if len(first) > width or rest:
        return first[: max(width - 1, 0)].rstrip() + "…"
    return first


def result_error(result: dict[str, Any]) -> str | None:
    """The error a tool reported (``{"ok": false, "error": ...}``), or None for a success."""
    if result.get("ok", True) is not False:
        return None
    error = result.get("error")
    return str(error) if error is not None else "failed"


def is_bash_result(result: dict[str, Any]) -> bool:
    return all(key in result for key in ("command", "exit_code"))


def bash_result_text(result: dict[str, Any]) -> str:
    """A bash call's result as fixed-structure text (``shell_text``)."""
    return shell_text(result.get("command", ""), result.get("exit_code"), result.get("stdout"), result.get("stderr"))


def shell_text(command: str, exit_code: int | None, stdout: str | None, stderr: str | None) -> str:
    """A shell command's run (a bash call's, a ``!`` command's) as fixed-structure text: command, exit code,
    stdout, stderr."""
    lines = [f"$ {command}", f"exit code {exit_code}"]
    for stream, value in (("stdout", stdout), ("stderr", stderr)):
        value = str(value or "").rstrip("\n")
        if value:
            lines.append(f"{stream}:")
            lines.append(value)
    return "\n".join(lines)


def tool_output_text(result: dict[str, Any]) -> str:
    """The full output of a tool call as text, from the JSON object the model was given.

    Tools return different keys, so this shows what is there: an error, a bash result in its fixed structure, or
    the scalar facts on one line followed by each text or list value in full.
    """
    error = result_error(result)
    if error is not None:
        return error
    if is_bash_result(result):
        return bash_result_text(result)
    data = {key: value for key, value in result.items() if key != "ok"}
    head = [f"{key}: {_scalar(data[key])}" for key in _HEAD_KEYS if key in data and not _is_block(data[key])]
    blocks = []
    for key, value in data.items():
        if key in _HEAD_KEYS and not _is_block(value):
            continue
        if _is_block(value):
            blocks.append(_block(value))
        else:
            head.append(f"{key}: {_scalar(value)}")
    return "\n".join(part for part in ("  ".join(head), *blocks) if part)


def _is_block(value: Any) -> bool:
    return isinstance(value, (list, dict)) or (isinstance(value, str) and ("\n" in value or len(value) > 60))


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _block(value: Any) -> str:
    if isinstance(value, str):
        return value.rstrip("\n")
    if isinstance(value, list):
        return "\n".join(item if isinstance(item, str) else json.dumps(item, ensure_ascii=False) for item in value)
    return json.dumps(value, ensure_ascii=False, indent=2)
