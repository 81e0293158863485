"""The price of one request (SPEC 27): from the configuration's ``model_prices`` when it names the model, else from
``genai-prices`` (a maintained price library, per provider and model, with cached-token prices), found by the
server's address. The library's bundled price data is used as shipped: it is never asked to fetch newer prices, so
a price costs no network. A model on this machine or the local network is free unless the configuration prices it;
a server the library does not know, elsewhere, has no price (None) rather than a guessed one.
"""

from __future__ import annotations

import ipaddress
import logging
from decimal import Decimal
from functools import lru_cache
from urllib.parse import urlparse

from engine.config.schema import ModelPrice
from engine.messages import Usage

log = logging.getLogger(__name__)

PER_MILLION = Decimal(1_000_000)


def request_cost(
    usage: Usage, model: str, base_url: str | None, configured: dict[str, ModelPrice]
) -> Decimal | None:
    """The request's cost in US dollars, or None when its price is not known. ``usage.cached_tokens`` are the
    prompt tokens the server read from its cache, priced as such where the price has a cached rate."""
    price = configured.get(model)
    if price is not None:
        return configured_cost(usage, price)
    if is_local(base_url):
        return Decimal(0)
    return library_cost(usage, model, base_url)


def configured_cost(usage: Usage, price: ModelPrice) -> Decimal:
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    cached_rate = price.cached_input if price.cached_input is not None else price.input
    total = (
        (usage.prompt_tokens - cached) * Decimal(str(price.input))
        + cached * Decimal(str(cached_rate))
        + usage.completion_tokens * Decimal(str(price.output))
    )
    return total / PER_MILLION


def library_cost(usage: Usage, model: str, base_url: str | None) -> Decimal | None:
    from genai_prices import Usage as PricedUsage
    from genai_prices import calc_price

    priced = PricedUsage(
        input_tokens=usage.prompt_tokens,
        cache_read_tokens=min(usage.cached_tokens, usage.prompt_tokens),
        output_tokens=usage.completion_tokens,
    )
    try:
        return calc_price(priced, model, provider_api_url=base_url or "https://api.openai.com/v1").total_price
    except LookupError:
        return None


@lru_cache(maxsize=64)
def is_local(base_url: str | None) -> bool:
    """Whether the server runs on this machine or the local network (loopback, private addresses, ``.local``)."""
    host = urlparse(base_url or "").hostname or ""
    if host in ("localhost", "host.docker.internal") or host.endswith((".local", ".localhost", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local
