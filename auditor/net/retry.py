"""When to retry a request and how long to wait first. Pure: no I/O; randomness comes in."""

from __future__ import annotations

from datetime import datetime
from email.utils import parsedate_to_datetime

# 429 Too Many Requests and the 5xx that mean "try later" (RFC 9110 §15.6).
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def retry_after_s(value: str | None, *, now: datetime) -> float | None:
    """Seconds asked by a Retry-After header (RFC 9110 §10.2.3: seconds or HTTP-date)."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # "²" and "٣" are digits to str.isdigit()
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - now).total_seconds())


def backoff_s(
    attempt: int, *, base_s: float, cap_s: float, retry_after: float | None, jitter: float
) -> float:
    """Delay before retry number `attempt` (0-based): Retry-After when given, else exponential.

    `jitter` in [0, 1) spreads the exponential delay over its upper half so that workers hit
    by the same 503 do not come back in step.
    """
    if retry_after is not None:
        return min(retry_after, cap_s)
    return min(cap_s, base_s * 2.0**attempt) * (0.5 + jitter / 2)
