"""The typed results of the ``/`` commands about what the run works with (SPEC 7, 15, 18, 19, 22): the mode, the
model, the colour theme, the permissions, the folder's trust, the tools, skills and MCP servers, the server check,
the status and the cost. Each is an event of the closed union (``engine.events.Event``) and a ``CommandReply``
(``engine.command_results``); a front end matches on the type.
"""

from __future__ import annotations

from engine.command_results import CommandReply, Row
from engine.record import record


@record
class ModeShown(CommandReply):
    """``/mode`` (and ``/plan``, ``/default``...): the mode in force, shown or just switched."""

    command: str
    text: str
    mode: str
    ok: bool = True


@record
class ServerSet(CommandReply):
    """``/setup URL [MODEL]``: the model server (and model; None: the server's own) saved in ``config_file`` and in
    force now."""

    command: str
    text: str
    base_url: str
    model: str | None
    config_file: str
    ok: bool = True


@record
class ModelSwitched(CommandReply):
    """``/model <name>``: the model in use now (saved in the project's config, or for this session only: ``text``
    says which)."""

    command: str
    text: str
    model: str
    ok: bool = True


@record
class ThemeChanged(CommandReply):
    """``/theme``: the colour theme in force, shown or switched (the front end applies it), and those offered."""

    command: str
    text: str
    theme: str
    themes: tuple[str, ...] = ()
    ok: bool = True


@record
class SkillsListed(CommandReply):
    """``/skills``: each skill (name, description, source, folder) and the problems found loading them."""

    command: str
    text: str
    skills: tuple[Row, ...]
    problems: tuple[str, ...] = ()
    ok: bool = True


@record
class ToolsListed(CommandReply):
    """``/tools``: each tool (name, state in this mode, summary)."""

    command: str
    text: str
    tools: tuple[Row, ...]
    ok: bool = True


@record
class PermissionsShown(CommandReply):
    """``/permissions``: the preset and mode in force, the matrix (what, decision) and the sandbox."""

    command: str
    text: str
    preset: str
    mode: str
    matrix: tuple[tuple[str, str], ...]
    sandbox: str
    ok: bool = True


@record
class StatusShown(CommandReply):
    """``/status``: what the session runs with; ``rows`` (what, value) is the table shown."""

    command: str
    text: str
    rows: tuple[tuple[str, str], ...]
    model: str
    provider_profile: str | None
    base_url: str | None
    session_id: str
    mode: str
    preset: str
    context_tokens: int
    context_window: int
    context_source: str
    context_window_source: str
    sandbox: str
    trusted: bool
    mcp_servers: dict[str, str]
    ok: bool = True


@record
class TrustShown(CommandReply):
    """``/trust [on|off]`` (SPEC 19): whether ``folder`` is trusted now, whether that is remembered (None: never
    asked), and the keys of its config ignored while it is not."""

    command: str
    text: str
    folder: str
    trusted: bool
    remembered: bool | None
    ignored: tuple[str, ...] = ()
    ok: bool = True


@record
class McpServersListed(CommandReply):
    """``/mcp``: each MCP server (name, state, transport, tools, prompts, error, not_offered, source, target, log)
    and the problems found reading their configuration."""

    command: str
    text: str
    servers: tuple[Row, ...]
    problems: tuple[str, ...] = ()
    ok: bool = True


@record
class McpServerRestarted(CommandReply):
    """``/mcp restart <name>``: the server's state after the restart (``ok`` False: it failed again)."""

    command: str
    text: str
    server: str
    state: str
    ok: bool = True


@record
class ServerChecked(CommandReply):
    """``/doctor`` (SPEC 18): what the model server is (``server``: "ollama", "vllm"... or None), its context
    window, how it calls tools ("native", "text", "none"; None when no call came back) and whether it streams;
    ``verdict`` in one line."""

    command: str
    text: str
    verdict: str
    server: str | None
    context_window: int | None
    tool_calls: str | None
    streams: bool | None
    ok: bool = True


@record
class CostShown(CommandReply):
    """``/cost``: the tokens this run used, as the server counted them, over ``requests`` requests
    (``cached_tokens``: the prompt tokens read from the server's prompt cache), and what the session and today cost
    in US dollars (models whose price is not known are not counted: ``unpriced``)."""

    command: str
    text: str
    requests: int
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    session_usd: float = 0.0
    today_usd: float = 0.0
    budget_usd: float | None = None
    unpriced: tuple[str, ...] = ()
    ok: bool = True


SettingsEvent = (
    ModeShown
    | ModelSwitched
    | ServerSet
    | ThemeChanged
    | SkillsListed
    | ToolsListed
    | PermissionsShown
    | StatusShown
    | TrustShown
    | McpServersListed
    | McpServerRestarted
    | ServerChecked
    | CostShown
)
