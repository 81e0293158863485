"""Which model to use when none is configured and a server URL is (SPEC 18, "just the URL"): the server's only
model, or the user chooses among the ones it lists (the full screen's ``/model`` picker, ``--model`` headless).
A model the configuration, the command line or ``CODER_MODEL`` names is never replaced."""

from __future__ import annotations

from engine.config import Config
from engine.provider.server_probe import ServerInfo
from engine.record import record

SHOWN_MODELS = 8


@record
class ServerModels:
    """``only``: the model to switch to; ``choices``: the models to choose among (several, none chosen yet)."""

    only: str | None = None
    choices: tuple[str, ...] = ()


def model_configured(config: Config) -> bool:
    """Whether a layer of the configuration named the model (``load_config`` leaves it out of the defaults)."""
    return "model" in config.model_fields_set


def server_models(info: ServerInfo | None, model: str, *, chosen: bool) -> ServerModels:
    """What to do about ``model`` once the server listed its models: nothing when the model was chosen, the server
    serves it or listed none."""
    if chosen or info is None or not info.models or model in info.models:
        return ServerModels()
    if len(info.models) == 1:
        return ServerModels(only=info.models[0])
    return ServerModels(choices=info.models)


def choose_model_text(models: tuple[str, ...], *, interactive: bool) -> str:
    """What the user is told while no model is chosen among the several the server lists."""
    shown = ", ".join(models[:SHOWN_MODELS]) + (", ..." if len(models) > SHOWN_MODELS else "")
    how = "choose one with /model" if interactive else "choose one with --model NAME (or CODER_MODEL)"
    return f"no model is configured and the server lists {len(models)} ({shown}): {how}"


def fetch_models(base_url: str, api_key: str | None, timeout: float = 5.0) -> list[str]:
    """The model ids ``GET {base_url}/models`` lists (the setup form's "Test"). ``OSError`` when the server cannot be
    reached or answers with an error, ``ValueError`` when the answer is not a model list."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = httpx.get(f"{base_url.rstrip('/')}/models", headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        raise OSError(str(exc) or type(exc).__name__) from exc
    if response.status_code != 200:
        raise OSError(f"GET /models answered {response.status_code}")
    data = response.json().get("data") if "json" in response.headers.get("content-type", "") else None
    if not isinstance(data, list):
        raise ValueError("the answer to GET /models is not a list of models")
    return [item["id"] for item in data if isinstance(item, dict) and isinstance(item.get("id"), str)]
