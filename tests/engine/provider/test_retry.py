"""The retry policy (SPEC 18): what is retried, and how long the provider waits first."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from engine.provider.retry import backoff_delay, is_retryable_status, parse_retry_after

NOW = 1_700_000_000.0


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_transient_statuses_are_retried(status: int) -> None:
    assert is_retryable_status(status)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422])
def test_request_errors_are_not_retried(status: int) -> None:
    assert not is_retryable_status(status)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "0.2"}, 0.2),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": formatdate(NOW + 7, usegmt=True)}, 7.0),
        ({"retry-after": formatdate(NOW - 60, usegmt=True)}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-3"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after-ms": "nan", "retry-after": "1"}, 1.0),
        ({}, None),
    ],
)
def test_retry_after_headers_are_read(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == expected


def test_backoff_doubles_from_the_base_delay_without_jitter() -> None:
    delays = [backoff_delay(retry, base_delay=0.5, max_delay=30, random_fraction=lambda: 0.0) for retry in (1, 2, 3)]
    assert delays == [0.5, 1.0, 2.0]


def test_jitter_shortens_the_wait_by_at_most_a_quarter() -> None:
    assert backoff_delay(3, base_delay=0.5, max_delay=30, random_fraction=lambda: 1.0) == 1.5


def test_backoff_is_capped_at_the_max_delay() -> None:
    assert backoff_delay(40, base_delay=0.5, max_delay=30, random_fraction=lambda: 0.0) == 30


def test_retry_after_wins_over_backoff_but_not_over_the_cap() -> None:
    assert backoff_delay(1, base_delay=0.5, max_delay=30, retry_after=4.0) == 4.0
    assert backoff_delay(1, base_delay=0.5, max_delay=30, retry_after=600.0) == 30


def test_retry_number_starts_at_one() -> None:
    with pytest.raises(ValueError, match="retry must be 1 or more"):
        backoff_delay(0, base_delay=0.5, max_delay=30)
