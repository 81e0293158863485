"""Builds the provider from the configuration, at the first turn (importing the openai SDK only then)."""

from __future__ import annotations

from engine.config import Config
from engine.config.loader import resolve_api_key
from engine.config.paths import user_config_path
from engine.errors import ProviderError
from engine.provider.base import ChatProvider

HOW_TO_CONFIGURE = (
    "no model is configured: set {env} (and OPENAI_BASE_URL for a server other than OpenAI, e.g. "
    "http://localhost:11434/v1 for Ollama), or set provider.base_url and model in your config, {config_file} "
    "(/setup does it for you); choose the model with CODER_MODEL, --model or /model"
)


def missing_model_setup(config: Config, env: dict[str, str] | None = None) -> str | None:
    """How to configure a model when there is neither a key nor a server URL; None when one is configured. It names
    the user's own config, which applies in every folder (a folder's own may not name a server until trusted)."""
    if resolve_api_key(config, env) or config.provider.base_url:
        return None
    return HOW_TO_CONFIGURE.format(env=config.provider.api_key_env, config_file=user_config_path(env))


def make_provider(config: Config, env: dict[str, str] | None = None) -> ChatProvider:
    """Raises ``ProviderError`` saying how to configure a model when there is neither a key nor a server URL.
    The adapter speaks the configured API (``provider.api``: Chat Completions, or the Responses API). Tool calls a
    model writes as text are read as calls (``text_tool_stream``) unless the XML format is set, which rewrites the
    request itself."""
    if (missing := missing_model_setup(config, env)) is not None:
        raise ProviderError(missing)
    api_key = resolve_api_key(config, env)
    from engine.provider.model_apis import takes_prompt_cache_key
    from engine.provider.openai_provider import OpenAIProvider

    adapter = OpenAIProvider
    if config.provider.api == "responses":
        from engine.provider.responses_provider import ResponsesProvider

        adapter = ResponsesProvider
    provider = adapter(
        base_url=config.provider.base_url,
        api_key=api_key,
        timeout=config.provider.timeout,
        max_retries=config.provider.max_retries,
        reasoning_effort=config.provider.reasoning_effort,
        headers=config.provider.headers,
        api_key_env=config.provider.api_key_env,
        prompt_cache_key=takes_prompt_cache_key(config.provider),
    )
    if config.tool_call_format == "xml":
        return provider
    from engine.provider.text_tool_stream import TextToolCallProvider

    return TextToolCallProvider(provider)
