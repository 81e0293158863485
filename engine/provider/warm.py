"""Warming a provider before its first request: what it would load then (an SDK, a client), loaded now."""

from __future__ import annotations


def warm_provider(provider: object) -> None:
    """Calls the provider's ``warm()`` if it has one (``OpenAIProvider``, and wrappers that pass it on); a provider
    without one (a test double) loads on first use."""
    warm = getattr(provider, "warm", None)
    if callable(warm):
        warm()
