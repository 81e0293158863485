"""The retry policy for model calls, as pure functions: what is worth retrying and how long to wait first.

A failure is retried only before the first chunk reached the caller; after that, a retry would replay text the
user already saw, so the provider reports the broken stream instead (see ``openai_provider``).
"""

from __future__ import annotations

import email.utils
import math
import random
import time
from collections.abc import Callable, Mapping
from datetime import timezone

# 408 request timeout, 409 conflict (lock contention), 429 rate limit: the same request may well succeed later.
_RETRYABLE_CLIENT_STATUSES = frozenset({408, 409, 429})
# Each retry waits up to this fraction less than the plain backoff, so clients that failed together spread out.
_JITTER = 0.25


def is_retryable_status(status: int) -> bool:
    """429, 408, 409 and every 5xx are transient; other 4xx mean the request itself is wrong."""
    return status in _RETRYABLE_CLIENT_STATUSES or status >= 500


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds the server asked us to wait: ``retry-after-ms``, else ``Retry-After`` as seconds or an HTTP date.

    ``headers`` must look names up case-insensitively (httpx headers do) or use lower-case names. ``now`` is the
    current Unix time, for dates; a date in the past means "now" (0). Unreadable values give ``None``.
    """
    milliseconds = _finite_float(headers.get("retry-after-ms"))
    if milliseconds is not None and milliseconds >= 0:
        return milliseconds / 1000
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _finite_float(value)
    if seconds is not None:
        return seconds if seconds >= 0 else None
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # an HTTP date is always GMT; a zone-less one is read as such
        moment = moment.replace(tzinfo=timezone.utc)
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


def backoff_delay(
    retry: int,
    *,
    base_delay: float,
    max_delay: float,
    retry_after: float | None = None,
    random_fraction: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before retry number ``retry`` (1 for the first retry).

    The server's ``Retry-After`` wins when given; otherwise ``base_delay * 2**(retry - 1)`` shortened by up to 25%
    of jitter. Either way the wait never exceeds ``max_delay``, so a user never stares at a silent screen for long.
    """
    if retry < 1:
        raise ValueError(f"retry must be 1 or more, got {retry}")
    if retry_after is not None:
        return min(max(retry_after, 0.0), max_delay)
    exponential = base_delay * 2 ** min(retry - 1, 64)
    return min(exponential, max_delay) * (1 - _JITTER * random_fraction())


def _finite_float(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None
