"""The configuration schema (SPEC 17): every key, its type and its default, validated by pydantic."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.hooks.settings import HooksConfig

PermissionAction = Literal["allow", "ask", "deny"]
# The API a server speaks for the model (SPEC 18): Chat Completions, or the Responses API (OpenAI's Codex models).
ModelApi = Literal["chat", "responses"]


class _Section(BaseModel):
    # An unknown key is an error that names it, not a silent no-op. Strict: no coercion, "yes" is not a boolean and
    # "5" not a number (SPEC 19); a JSON integer is still a valid float.
    model_config = ConfigDict(extra="forbid", strict=True)


class ProviderConfig(_Section):
    base_url: str | None = None
    # The name of the environment variable holding the key; the key itself is never stored in a file.
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=3, ge=0, le=10)
    # Sent to servers that take it (OpenAI, DeepSeek, OpenRouter, Groq...): "low", "medium", "high"...
    reasoning_effort: str | None = None
    # Extra HTTP headers on every request (OpenRouter's HTTP-Referer and X-Title); never a key.
    headers: dict[str, str] = Field(default_factory=dict)
    # None: "responses" for the models served only there (the known-model table), else "chat".
    api: ModelApi | None = None
    # Send ``prompt_cache_key`` (the session id) so the server routes a session's requests to its cache. None: only
    # to OpenAI's own API, which takes it; a server that refuses unknown fields would reject it.
    prompt_cache_key: bool | None = None


class ProviderProfile(_Section):
    """A named server (SPEC 18): ``--provider NAME`` or ``/model NAME:model`` selects it."""

    base_url: str | None = None
    api_key_env: str | None = None
    model: str | None = None
    context_window: int | None = Field(default=None, ge=1024)
    reasoning_effort: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    api: ModelApi | None = None
    prompt_cache_key: bool | None = None


class WorkflowConfig(_Section):
    auto_verify_after_edit: bool = True
    max_verify_attempts: int = Field(default=2, ge=0)
    verify_commands: list[str] = Field(default_factory=list)
    # SPEC 8: auto-verify runs with no network unless this is true.
    verify_network: bool = False
    require_todo_for_complex: bool = True


class PermissionsConfig(_Section):
    preset: Literal["strict", "balanced", "auto-edit", "build", "yolo", "plan"] = "balanced"
    tools: dict[str, PermissionAction] = Field(default_factory=dict)
    bash: dict[str, PermissionAction] = Field(default_factory=dict)
    # Host patterns fetch may reach without asking, or never (SPEC 5): {"docs.python.org": "allow"}.
    fetch: dict[str, PermissionAction] = Field(default_factory=dict)


class ApprovalConfig(_Section):
    interactive: bool = True


class CompactionConfig(_Section):
    enabled: bool = True
    threshold: float = Field(default=0.7, gt=0, le=1)
    keep_recent: float = Field(default=0.3, gt=0, lt=1)


class UndoConfig(_Section):
    max_turns: int = Field(default=20, ge=1)
    # Files larger than this are not copied for undo (named in the undo result instead).
    max_file_mb: float = Field(default=50, gt=0)
    # gitignore-style patterns of what undo does not keep (named in the result when a turn changes them).
    skip: list[str] = Field(default_factory=lambda: ["node_modules/", ".venv/"])
    # Also skip what the workspace's .gitignore files ignore (with or without git).
    skip_gitignored: bool = True
    # How long a tool call waits for the first capture of the workspace before it runs anyway (what it then
    # changes in files the capture had not read yet is named, not restorable).
    first_capture_wait_s: float = Field(default=10, ge=0)


class BashConfig(_Section):
    timeout: float = Field(default=120.0, gt=0)
    max_timeout: float = Field(default=600.0, gt=0)
    output_cap_bytes: int = Field(default=30_000, ge=1000)
    # SPEC 13: environment names that reach commands run unasked (besides the allow-list), and that approved
    # commands keep even when they look like secrets. Read from the user's config only.
    env: list[str] = Field(default_factory=list)


class SubagentConfig(_Section):
    max_steps: int = Field(default=20, ge=1)


class AgentsConfig(_Section):
    # How many agents (SPEC 26) run at once; more wait their turn.
    max_running: int = Field(default=4, ge=1, le=32)
    # An engine left running after its UI quit (``coder-tui --attach``) ends after this many hours in which nothing
    # happened in it and no UI was attached.
    detached_idle_hours: float = Field(default=24.0, gt=0)


class FetchConfig(_Section):
    timeout: float = Field(default=30.0, gt=0)
    max_bytes: int = Field(default=5 * 1024 * 1024, ge=1024)
    # Loopback, private, link-local and cloud-metadata addresses: refused outside yolo unless this is true (SPEC 5).
    allow_private: bool = False


class SandboxConfig(_Section):
    # Extra folders approved bash commands may write to (SPEC 20), e.g. "~/.cache/pip".
    writable: list[str] = Field(default_factory=list)
    # Extra folders commands that run unasked (and auto-verify) may read (SPEC 13). Read from the user's config only.
    readable: list[str] = Field(default_factory=list)


class IdentityProviderConfig(_Section):
    """The enterprise identity provider of an enterprise-managed sign-in (SEP-990): the person's ID token from it is
    exchanged at its token endpoint for an identity assertion the MCP server's authorization server accepts."""

    token_endpoint: str
    client_id: str
    client_secret: str | None = None
    # The person's OpenID Connect ID token from the provider's single sign-on, e.g. "${IDP_ID_TOKEN}".
    id_token: str


class McpOAuthConfig(_Section):
    """How coder-tui signs in to an HTTP MCP server (SPEC 22). Unset keys leave the SDK's discovery to find the rest:
    with none, it registers itself dynamically and signs in through the browser. ``${VAR}`` in ``client_secret``
    and ``private_key`` is read from the environment when the server starts."""

    # "authorization_code": a person signs in through the browser; "client_credentials": no person, the client's
    # own credentials (a secret or a private key) get the token (CI, headless runs); "identity_assertion": an
    # enterprise-managed sign-in, the company's identity provider vouching for the person (needs `idp`, `issuer`).
    grant: Literal["authorization_code", "client_credentials", "identity_assertion"] = "authorization_code"
    # A client registered beforehand by the server's owner: used as is, never registered again.
    client_id: str | None = None
    client_secret: str | None = None
    # The port of the sign-in's return address (http://127.0.0.1:PORT/callback), for a client registered with a
    # fixed one; unset, a free port is chosen once and kept.
    callback_port: int | None = Field(default=None, ge=1, le=65535)
    # How the client proves itself at the token endpoint; unset: a secret goes as HTTP Basic, none without one.
    token_endpoint_auth_method: Literal["none", "client_secret_basic", "client_secret_post"] | None = None
    # client_credentials with a private key (RFC 7523 private_key_jwt) instead of a secret: the PEM itself.
    private_key: str | None = None
    signing_algorithm: str = "RS256"
    # A Client ID Metadata Document: an HTTPS address used as the client id where the server supports it.
    client_metadata_url: str | None = None
    scope: str | None = None
    # The MCP server's authorization server, named rather than discovered (identity_assertion).
    issuer: str | None = None
    idp: IdentityProviderConfig | None = None

    @model_validator(mode="after")
    def _grant_has_what_it_needs(self) -> McpOAuthConfig:
        if self.grant == "client_credentials" and (self.client_id is None or
                                                    (self.client_secret is None) == (self.private_key is None)):
            raise ValueError("grant client_credentials needs `client_id` and one of `client_secret` or `private_key`")
        if self.grant == "identity_assertion" and (self.client_id is None or self.client_secret is None
                                                    or self.issuer is None or self.idp is None):
            raise ValueError("grant identity_assertion needs `client_id`, `client_secret`, `issuer` and `idp`")
        if self.client_secret is not None and self.client_id is None:
            raise ValueError("`client_secret` belongs to a `client_id`: set both")
        if self.client_metadata_url is not None and not self.client_metadata_url.startswith("https://"):
            raise ValueError("`client_metadata_url` must be an https:// address")
        return self


class McpServerConfig(_Section):
    """One MCP server (SPEC 22): a command run over stdio, or a URL (streamable HTTP; SSE with ``type: "sse"``).
    ``${VAR}`` in ``env`` and ``headers`` is expanded from the environment when the server starts."""

    type: Literal["stdio", "http", "sse"] | None = None
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    enabled: bool = True
    startup_timeout: float = Field(default=30.0, gt=0)
    tool_timeout: float = Field(default=600.0, gt=0)
    # What "always" in the approval dialog allows: the one tool, or every tool of this server.
    always: Literal["tool", "server"] = "tool"
    # The values a form the server asks for (elicitation) is answered with when nobody can be asked (headless),
    # by field name; unset, such a request is declined and the user told why.
    elicitation: dict[str, Any] | None = None
    # HTTP servers: sign in with OAuth when the server asks for it (401 with WWW-Authenticate); settings for a
    # client registered beforehand, a metadata document or the client-credentials grant.
    oauth: bool | McpOAuthConfig = True
    # Which protocol generation to speak: "auto" discovers the server's newest (2026-07-28 when it has it) and falls
    # back to the initialize handshake, on its own, for a server whose tools still ask the client on a back channel;
    # "legacy" always uses the handshake (2025-11-25 and older).
    protocol: Literal["auto", "legacy"] = "auto"

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("an MCP server needs either `command` (stdio) or `url` (HTTP), not both")
        if self.type == "stdio" and self.command is None or self.type in ("http", "sse") and self.url is None:
            raise ValueError(f"type {self.type!r} does not fit: stdio needs `command`, http and sse need `url`")
        return self


class StatusLineConfig(_Section):
    """``status_line`` (SPEC 27): a command run with Claude Code's status-line JSON on stdin; its first line of
    output is shown in the status line. Read from a trusted config only (it runs a command)."""

    type: Literal["command"] = "command"
    command: str | None = None
    # Seconds the command may take; then it is stopped and the line keeps what it showed.
    timeout: float = Field(default=2.0, gt=0, le=30)


class ModelPrice(_Section):
    """A model's price in US dollars per million tokens (SPEC 27), for a server the price library does not know:
    ``cached_input`` for prompt tokens the server read from its cache (default: ``input``)."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)


class Config(_Section):
    model: str = "gpt-4o-mini"
    provider: ProviderConfig = Field(default_factory=ProviderConfig)
    providers: dict[str, ProviderProfile] = Field(default_factory=dict)
    context_window: int = Field(default=128_000, ge=1024)
    max_steps: int = Field(default=50, ge=1)
    mode: Literal["plan", "default", "auto-edit", "build", "yolo"] | None = None
    tool_call_format: Literal["native", "xml"] = "native"
    workflow: WorkflowConfig = Field(default_factory=WorkflowConfig)
    permissions: PermissionsConfig = Field(default_factory=PermissionsConfig)
    approval: ApprovalConfig = Field(default_factory=ApprovalConfig)
    auto_approve_ask: bool = False
    compaction: CompactionConfig = Field(default_factory=CompactionConfig)
    undo: UndoConfig = Field(default_factory=UndoConfig)
    bash: BashConfig = Field(default_factory=BashConfig)
    subagent: SubagentConfig = Field(default_factory=SubagentConfig)
    agents: AgentsConfig = Field(default_factory=AgentsConfig)
    fetch: FetchConfig = Field(default_factory=FetchConfig)
    # The TUI's colour theme, one of Textual's built-in themes (``/theme`` saves it in the user's config).
    theme: str | None = None
    # Vim keys in the prompt (``/vim`` switches them and saves the choice in the user's config).
    vim: bool = False
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    # Folder trust (SPEC 19), read from the user's config only: absolute paths the user trusted or declined.
    trusted_folders: list[str] = Field(default_factory=list)
    untrusted_folders: list[str] = Field(default_factory=list)
    mcp_servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    # Commands run on session start, requests, tool calls, stops and notifications (Claude Code's protocol).
    hooks: HooksConfig = Field(default_factory=dict)
    # Prices per model (SPEC 27), over the price library's; a model on this machine is free unless priced here.
    model_prices: dict[str, ModelPrice] = Field(default_factory=dict)
    status_line: StatusLineConfig = Field(default_factory=StatusLineConfig)
    # A session's spend in US dollars past which no request is sent (``--max-budget-usd``).
    budget_usd: float | None = Field(default=None, gt=0)
