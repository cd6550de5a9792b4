"""The audit's clock, injected so that time-dependent rules (`lastmod.future`) are testable."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    """Wall time for timestamps and rules; monotonic time for durations."""

    def now(self) -> datetime:
        """Timezone-aware UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin; never goes back."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        """Timezone-aware UTC now."""
        return datetime.now(UTC)

    def monotonic(self) -> float:
        """time.monotonic()."""
        return time.monotonic()


@dataclass(frozen=True, slots=True)
class FixedClock:
    """A clock stopped at `at` for wall time (tests); durations still use the real clock."""

    at: datetime

    def now(self) -> datetime:
        """Always `at`."""
        return self.at

    def monotonic(self) -> float:
        """time.monotonic()."""
        return time.monotonic()
