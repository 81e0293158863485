"""Which API a model is served on, and which optional request fields its server takes (SPEC 18).

OpenAI serves its Codex models (``gpt-5-codex``, ``gpt-5.1-codex``, ``gpt-5.1-codex-max``, ``gpt-5.1-codex-mini``,
``codex-mini-latest``, and the later ones named the same way) on the Responses API only: a Chat Completions request
for one gets "This model is only supported in v1/responses". A bare name is matched (the way OpenAI names its
models); a gateway's prefixed name (OpenRouter's ``openai/gpt-5-codex``) is left to the gateway, which translates.

``prompt_cache_key`` keeps a session's requests on the server's cached prefix; OpenAI's own API takes it, and a
server that refuses unknown fields (vLLM with strict validation, Groq) would reject the request, so it is sent to
other servers only when the configuration says so.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from engine.config.schema import ModelApi, ProviderConfig

_RESPONSES_ONLY = re.compile(r"^(gpt-\d+(\.\d+)*-codex(-[a-z0-9.-]+)?|codex-mini(-[a-z0-9.-]+)?)$")
OPENAI_HOST = "api.openai.com"


def known_api(model: str) -> ModelApi | None:
    """``"responses"`` for a model served only on the Responses API, else None (no known need)."""
    return "responses" if _RESPONSES_ONLY.match(model.strip().lower()) else None


def takes_prompt_cache_key(provider: ProviderConfig) -> bool:
    """Whether requests carry ``prompt_cache_key``: as configured, else only to OpenAI's own API (the SDK's
    default URL when none is set)."""
    if provider.prompt_cache_key is not None:
        return provider.prompt_cache_key
    if provider.base_url is None:
        return True
    return (urlsplit(provider.base_url).hostname or "").lower() == OPENAI_HOST
