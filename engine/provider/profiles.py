"""Named provider profiles (SPEC 18): ``providers: {name: {base_url, api_key_env, model, context_window,
reasoning_effort, headers, api, prompt_cache_key}}`` in the configuration, chosen with ``--provider NAME`` or
``/model NAME:model``.

A model is named ``profile:model`` where ``profile`` is a configured profile; any other name, colons included
(Ollama's ``qwen3:8b``), is a plain model on the current server. The result of a choice is the configuration a turn
uses: the profile's server settings over ``provider``, its model, and the context window from the profile, else
from the configuration when it sets one, else from the table of known models. The API (``chat`` or ``responses``)
is the profile's, else the ``provider`` section's, else the one the model is known to need, else ``chat``.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine.config.schema import Config, ProviderProfile
from engine.errors import ConfigError
from engine.provider.known_windows import known_context_window
from engine.provider.model_apis import known_api

DEFAULT_CONTEXT_WINDOW = Config.model_fields["context_window"].default
DEFAULT_MODEL = Config.model_fields["model"].default


def split_model_spec(spec: str, profiles: Mapping[str, ProviderProfile]) -> tuple[str | None, str]:
    """``(profile, model)``; the model is empty for ``profile:`` (use the profile's own)."""
    name, colon, model = spec.partition(":")
    if colon and name in profiles:
        return name, model
    return None, spec


def check_profile(name: str, config: Config) -> None:
    if name not in config.providers:
        known = ", ".join(sorted(config.providers)) or "none"
        raise ConfigError(f"no provider profile named {name!r} in the configuration (providers: {known})")


def window_is_configured(base: Config, profile: str | None) -> bool:
    """Whether the configuration (the profile, or the top level) sets the context window itself."""
    chosen = base.providers.get(profile) if profile is not None else None
    return (chosen is not None and chosen.context_window is not None) or base.context_window != DEFAULT_CONTEXT_WINDOW


def effective_config(base: Config, profile: str | None, model: str) -> Config:
    """The configuration for ``model`` on ``profile`` (None: the ``provider`` section alone). An empty ``model``
    means the profile's model, else the configured one."""
    provider = base.provider
    window: int | None = None
    if profile is not None:
        check_profile(profile, base)
        chosen = base.providers[profile]
        model = model or chosen.model or split_model_spec(base.model, base.providers)[1] or DEFAULT_MODEL
        provider = provider.model_copy(
            update={
                "base_url": chosen.base_url or provider.base_url,
                "api_key_env": chosen.api_key_env or provider.api_key_env,
                "reasoning_effort": chosen.reasoning_effort or provider.reasoning_effort,
                "headers": {**provider.headers, **chosen.headers},
                "api": chosen.api or provider.api,
                "prompt_cache_key": (
                    chosen.prompt_cache_key if chosen.prompt_cache_key is not None else provider.prompt_cache_key
                ),
            }
        )
        window = chosen.context_window
    if window is None and base.context_window != DEFAULT_CONTEXT_WINDOW:
        window = base.context_window
    window = window or known_context_window(model) or DEFAULT_CONTEXT_WINDOW
    provider = provider.model_copy(update={"api": provider.api or known_api(model) or "chat"})
    return base.model_copy(update={"model": model, "provider": provider, "context_window": window})
