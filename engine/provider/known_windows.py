"""Context windows of common models, used when neither the configuration nor the provider profile gives one.

Names are matched by their last path segment (OpenRouter's ``anthropic/claude-sonnet-4.5``) without an Ollama tag
(``qwen3:8b``), by the longest known prefix. The numbers are the models' published maximum input windows; a local
server may be started with less (Ollama's ``num_ctx``), which a profile's ``context_window`` says.
"""

from __future__ import annotations

_WINDOWS = {
    "gpt-5": 400_000,
    "gpt-4.1": 1_047_576,
    "gpt-4o": 128_000,
    "gpt-4-turbo": 128_000,
    "gpt-oss": 131_072,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "deepseek-chat": 128_000,
    "deepseek-reasoner": 128_000,
    "deepseek-r1": 128_000,
    "deepseek-v3": 128_000,
    "claude": 200_000,
    "gemini-1.5": 1_048_576,
    "gemini-2": 1_048_576,
    "gemini-3": 1_048_576,
    "grok-4": 256_000,
    "grok-3": 131_072,
    "kimi-k2": 256_000,
    "glm-4.6": 200_000,
    "glm-4.5": 128_000,
    "mistral-large": 128_000,
    "mistral-medium": 128_000,
    "magistral": 128_000,
    "codestral": 256_000,
    "devstral": 128_000,
    "llama3.1": 131_072,
    "llama3.2": 131_072,
    "llama3.3": 131_072,
    "llama-3.1": 131_072,
    "llama-3.3": 131_072,
    "llama-4": 1_048_576,
    "qwen3-coder": 262_144,
    "qwen3": 40_960,
    "qwen2.5-coder": 32_768,
    "qwen2.5": 32_768,
    "qwq": 131_072,
    "gemma3": 131_072,
    "phi4": 16_384,
}


def known_context_window(model: str) -> int | None:
    name = model.rsplit("/", 1)[-1].split(":", 1)[0].lower()
    matches = [prefix for prefix in _WINDOWS if name.startswith(prefix)]
    return _WINDOWS[max(matches, key=len)] if matches else None
