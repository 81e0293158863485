"""What every tool is: a name, a description, pydantic parameters (its JSON schema), a kind for the mode matrix,
and an async ``run`` that returns data or raises ``ToolError``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from engine.errors import EngineError, ToolError
from engine.messages import ImageRef, ToolDef
from engine.record import record
from engine.sandbox.grant import SandboxGrant
from engine.tools.guard import Workspace
from engine.workflow.todos import TodoList


class ToolKind(str, Enum):
    """The rows of the SPEC 4 mode matrix."""

    READ = "read"  # read, list, glob, grep, todoread, todowrite, skill, fetch
    EDIT = "edit"  # write, edit, patch
    EXECUTE = "execute"  # bash
    SUBAGENT = "subagent"  # task
    INTERACT = "interact"  # question
    MCP = "mcp"  # a tool of an MCP server (SPEC 22)
    MCP_READ_ONLY = "mcp_read_only"  # an MCP tool annotated readOnlyHint

    @property
    def may_change_files(self) -> bool:
        """Whether a tool of this kind may change the workspace's files: what the undo capture encloses (SPEC 7).
        Reading tools (the todo list and fetch included: they write no file) and the question never do; an MCP tool
        may even when its server calls it read-only, which is the server's word."""
        return self not in (ToolKind.READ, ToolKind.INTERACT)


@record
class ToolOutput:
    """A successful result. ``data`` is written back to the model as ``{"ok": true, **data}``."""

    data: dict[str, Any]
    diff: str | None = None
    # The workspace-relative paths a write/edit/patch changed (moves: both ends), for auto-verify and /diff.
    changed_paths: tuple[str, ...] = ()
    # Images the result carries (an MCP tool's image content): the turn sends them as image parts after the results.
    images: tuple[ImageRef, ...] = ()


@record
class ToolLimits:
    bash_timeout_s: float = 120.0
    bash_max_timeout_s: float = 600.0
    output_cap_bytes: int = 30_000
    read_max_lines: int = 2000
    read_max_line_chars: int = 2000
    max_results: int = 200


@dataclass
class FileRecord:
    """What the session knows of a file it read or wrote: to refuse overwriting a file changed behind its back."""

    mtime_ns: int
    size: int


class FetchGate(Protocol):
    """What ``fetch`` may reach without asking (SPEC 5), answered by the permission policy of the moment."""

    def host_allowed(self, host: str) -> bool:
        """Whether a redirect may go on to ``host`` (the first host of a call was already decided, or asked)."""
        ...

    def private_allowed(self) -> bool:
        """Whether loopback, private, link-local and metadata addresses may be reached (yolo, fetch.allow_private)."""
        ...

    def address_denied(self, address: str) -> str | None:
        """Why a deny rule refuses the address a host resolved to (a rule naming an address holds for every name
        that leads there), or None."""
        ...


@dataclass
class ToolContext:
    """What a tool may use. Handed to every call; tools keep no state of their own."""

    workspace: Workspace
    limits: ToolLimits = field(default_factory=ToolLimits)
    # Files read or written in this session, by resolved path.
    known_files: dict[Path, FileRecord] = field(default_factory=dict)
    # The session's todo list, read and replaced by the todo tools.
    todos: TodoList = field(default_factory=TodoList)
    # The id of the tool call being run, set per call by the tool chain (``dataclasses.replace``), so that a tool
    # starting nested work (task) or asking the user (question) can tie it to the call the UI shows.
    call_id: str | None = None
    # Called with each file's path right before a tool changes it (the undo journal snapshots it there).
    before_change: Callable[[Path], None] | None = None
    # The sandbox the policy granted this call (bash only; SPEC 20), set per call by the tool chain; None runs
    # unsandboxed with the user's environment (yolo).
    sandbox: SandboxGrant | None = None
    # What fetch may reach (SPEC 5). None: any host, and public addresses only.
    fetch_gate: FetchGate | None = None
    # The hunks of its previewed diff the user kept for this call (write, edit, patch; SPEC 5), set per call by
    # the tool chain; None applies the whole change.
    kept_hunks: frozenset[int] | None = None
    # Called with ("stdout" or "stderr", text) as a running command prints, set per call by the tool chain, so the
    # user sees it live and an interrupted call keeps what it printed.
    on_output: Callable[[str, str], None] | None = None

    def about_to_change(self, paths: Iterable[Path]) -> None:
        """Lets the undo journal keep each file's previous state; if it cannot, the change does not happen."""
        if self.before_change is None:
            return
        for path in paths:
            try:
                self.before_change(path)
            except EngineError as exc:
                raise ToolError(f"cannot keep an undo copy of {self.workspace.display(path)}: {exc}") from exc

    def remember(self, path: Path) -> None:
        try:
            stat = path.stat()
        except OSError:
            self.known_files.pop(path, None)
            return
        self.known_files[path] = FileRecord(mtime_ns=stat.st_mtime_ns, size=stat.st_size)


ParamsT = TypeVar("ParamsT", bound=BaseModel)


class Tool(ABC, Generic[ParamsT]):
    name: ClassVar[str]
    description: ClassVar[str]
    params: ClassVar[type[BaseModel]]
    kind: ClassVar[ToolKind]

    def definition(self) -> ToolDef:
        return ToolDef(name=self.name, description=self.description, parameters=json_schema(self.params))

    def parse(self, arguments: dict[str, Any]) -> ParamsT:
        """Validates the model's arguments against the schema; a readable ``ToolError`` when they do not fit."""
        try:
            return self.params.model_validate(arguments)  # type: ignore[return-value]
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()
            )
            raise ToolError(f"invalid arguments for {self.name}: {problems}") from exc

    @abstractmethod
    def key_argument(self, params: ParamsT) -> str:
        """The one argument that says what the call does (a path, a pattern, a command), for summaries."""

    async def approval_reasons(self, params: ParamsT, ctx: ToolContext) -> list[str]:
        """Reasons this call needs the user's approval on its own account (``ApprovalAware``); none by default."""
        return []

    async def preview(self, params: ParamsT, ctx: ToolContext) -> str | None:
        """What the approval dialog shows besides the key argument: the diff an edit would make, say."""
        return None

    @abstractmethod
    async def run(self, params: ParamsT, ctx: ToolContext) -> ToolOutput:
        """Does the work. Raises ``ToolError`` for any failure the model should see; honours cancellation."""


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The pydantic schema trimmed to what function calling needs (no titles), inlining nothing else."""
    schema = model.model_json_schema()
    return _strip_titles(schema)


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        # A property may be called "title"; only the schema's own string titles go.
        return {k: _strip_titles(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node
