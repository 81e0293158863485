"""What a local model server says about itself (SPEC 18): which server it is and the context window it runs the
model with, asked of the endpoints each one has.

- Ollama: ``GET /api/version``; ``POST /api/show`` (``num_ctx`` among the model's parameters, else the model's
  trained ``*.context_length``); ``GET /api/ps`` (the ``context_length`` a loaded model runs with);
- llama.cpp: ``GET /props`` (``default_generation_settings.n_ctx``: the ``-c`` it was started with);
- LM Studio: ``GET /api/v0/models`` (``loaded_context_length``, else ``max_context_length``);
- vLLM: ``GET /v1/models`` (``max_model_len``).

Every question is asked at once, each with a short timeout; one that fails or is not understood says nothing. The
answers are kept per server and model (``cached``), so a session asks once; callers run this in the background,
and a turn waits at most the timeout for it. ``/v1/models``' list is kept too (``ServerInfo.models``): with no model
configured, the server's own is used (``server_models``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import sys
from typing import Any

from engine.record import record

PROBE_TIMEOUT_S = 2.0
# The probe's requests say what they are, so a server's log (and the tests' scripted server) can tell them apart.
PROBE_USER_AGENT = "coder-tui (server probe)"

# What to raise on each server when it cut the prompt, and the server's name.
SERVER_SETTINGS = {
    "ollama": "Ollama's num_ctx (the OLLAMA_CONTEXT_LENGTH environment variable of `ollama serve`, or "
    "`PARAMETER num_ctx` in a Modelfile)",
    "llama.cpp": "llama.cpp's context size (`llama-server -c N`)",
    "lm-studio": "the model's context length in LM Studio (its load settings, or `lms load --context-length N`)",
    "vllm": "vLLM's `--max-model-len`",
}
SERVER_NAMES = {"ollama": "Ollama", "llama.cpp": "llama.cpp", "lm-studio": "LM Studio", "vllm": "vLLM"}


@record
class ServerInfo:
    kind: str | None  # "ollama", "llama.cpp", "lm-studio", "vllm"; None when the server did not say
    version: str | None = None
    context_window: int | None = None
    window_from: str | None = None  # where the window was read, for /status
    models: tuple[str, ...] | None = None  # what ``GET /v1/models`` listed; None when it did not answer


_cache: dict[tuple[str, str], ServerInfo] = {}


def http_library() -> Any:
    """The HTTP library the openai SDK runs on (``httpx2`` in recent versions, ``httpx`` before), imported as the
    SDK imports it: the probe adds no library and no second import path (two threads importing different roots of
    the same modules at once can see a half-made module)."""
    from engine.provider.sdk_import import import_openai

    import_openai()
    for name in ("httpx2", "httpx"):
        module = sys.modules.get(name)
        if module is not None:
            return module
    import httpx

    return httpx


def cached(base_url: str | None, model: str) -> ServerInfo | None:
    """What an earlier probe of this server and model found."""
    return _cache.get((base_url or "", model))


def server_root(base_url: str) -> str:
    """The server's root: the base URL without its ``/v1`` (Ollama, llama.cpp and LM Studio answer there)."""
    return re.sub(r"/v1/?$", "", base_url.rstrip("/"))


async def probe_server(
    base_url: str | None,
    model: str,
    *,
    headers: dict[str, str] | None = None,
    timeout: float = PROBE_TIMEOUT_S,
) -> ServerInfo:
    """What the server at ``base_url`` says of itself and of ``model`` (cached per server and model)."""
    if not base_url:
        return ServerInfo(None)
    key = (base_url, model)
    if key in _cache:
        return _cache[key]
    httpx = http_library()
    root = server_root(base_url)
    sent_headers = {**(headers or {}), "User-Agent": PROBE_USER_AGENT}
    async with httpx.AsyncClient(timeout=timeout, headers=sent_headers) as client:

        async def ask(method: str, url: str, body: Any = None) -> Any:
            try:
                response = await client.request(method, url, json=body)
                return response.json() if response.status_code == 200 else None
            except (httpx.HTTPError, ValueError):
                return None

        version, show, ps, props, lm_models, models = await asyncio.gather(
            ask("GET", f"{root}/api/version"),
            ask("POST", f"{root}/api/show", {"model": model}),
            ask("GET", f"{root}/api/ps"),
            ask("GET", f"{root}/props"),
            ask("GET", f"{root}/api/v0/models"),
            ask("GET", f"{base_url.rstrip('/')}/models"),
        )
    info = (
        _ollama(version, show, ps, model)
        or _llama_cpp(props)
        or _lm_studio(lm_models, model)
        or _vllm(models, model)
        or ServerInfo(None)
    )
    if isinstance(models, dict) and isinstance(models.get("data"), list):
        listed = tuple(entry["id"] for entry in _items(models, "data") if isinstance(entry.get("id"), str))
        info = dataclasses.replace(info, models=listed)
    _cache[key] = info
    return info


def _ollama(version: Any, show: Any, ps: Any, model: str) -> ServerInfo | None:
    if not (isinstance(version, dict) and isinstance(version.get("version"), str)):
        return None
    info = ServerInfo("ollama", version["version"])
    for loaded in _items(ps, "models"):
        if model in (loaded.get("name"), loaded.get("model")) and _positive(loaded.get("context_length")):
            window = loaded["context_length"]
            return dataclasses.replace(info, context_window=window, window_from="Ollama /api/ps (loaded model)")
    if isinstance(show, dict):
        match = re.search(r"^\s*num_ctx\s+(\d+)", str(show.get("parameters") or ""), re.MULTILINE)
        if match:
            window = int(match.group(1))
            return dataclasses.replace(info, context_window=window, window_from="Ollama /api/show (num_ctx)")
        details = show.get("model_info")
        if isinstance(details, dict):
            for name, value in details.items():
                if name.endswith(".context_length") and _positive(value):
                    return dataclasses.replace(info, 
                        context_window=value, window_from="Ollama /api/show (the model's context_length)"
                    )
    return info


def _llama_cpp(props: Any) -> ServerInfo | None:
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    n_ctx = n_ctx if _positive(n_ctx) else props.get("n_ctx")
    if not (_positive(n_ctx) or "model_path" in props or "build_info" in props):
        return None
    version = props.get("build_info") if isinstance(props.get("build_info"), str) else None
    if not _positive(n_ctx):
        return ServerInfo("llama.cpp", version)
    return ServerInfo("llama.cpp", version, n_ctx, "llama.cpp /props (n_ctx)")


def _lm_studio(models: Any, model: str) -> ServerInfo | None:
    entries = _items(models, "data")
    if not entries or not any("max_context_length" in entry for entry in entries):
        return None
    for entry in entries:
        if entry.get("id") == model:
            if _positive(entry.get("loaded_context_length")):
                window, source = entry["loaded_context_length"], "LM Studio /api/v0/models (loaded_context_length)"
                return ServerInfo("lm-studio", None, window, source)
            if _positive(entry.get("max_context_length")):
                return ServerInfo(
                    "lm-studio", None, entry["max_context_length"], "LM Studio /api/v0/models (max_context_length)"
                )
    return ServerInfo("lm-studio")


def _vllm(models: Any, model: str) -> ServerInfo | None:
    entries = _items(models, "data")
    if not any("max_model_len" in entry or entry.get("owned_by") == "vllm" for entry in entries):
        return None
    for entry in entries:
        if entry.get("id") == model and _positive(entry.get("max_model_len")):
            return ServerInfo("vllm", None, entry["max_model_len"], "vLLM /v1/models (max_model_len)")
    return ServerInfo("vllm")


def _items(payload: Any, key: str) -> list[dict[str, Any]]:
    items = payload.get(key) if isinstance(payload, dict) else None
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
