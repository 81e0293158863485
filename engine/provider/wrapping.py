"""A provider that wraps another: it changes what ``stream`` sends and yields, and passes the rest to ``inner``."""

from __future__ import annotations

from engine.provider.base import ChatProvider
from engine.provider.warm import warm_provider


class WrappingProvider:
    """``warm``, ``aclose``, ``list_models`` and every other attribute (``base_url``, ``timeout``...) are the wrapped
    provider's; a subclass sets ``self._inner`` and defines ``stream``."""

    _inner: ChatProvider

    def warm(self) -> None:
        """Warms the wrapped provider (see ``OpenAIProvider.warm``)."""
        warm_provider(self._inner)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def list_models(self) -> list[str]:
        return await self._inner.list_models()

    def __getattr__(self, name: str) -> object:
        if name == "_inner":  # not set yet: no wrapped provider to ask
            raise AttributeError(name)
        return getattr(self._inner, name)
