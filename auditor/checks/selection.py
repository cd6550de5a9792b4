"""Which URLs to request: `--include`/`--exclude` patterns and `--sample N`. Pure: no I/O.

Every URL is still validated and reported; these only decide which ones are requested. The
patterns are RE2's, searched in time linear in the URL (auditor.checks.url_patterns).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Generic, TypeVar

from auditor.checks.url_patterns import UrlPatterns
from auditor.errors import ConfigError

T = TypeVar("T")


class UrlFilter:
    """`--include` (any may match; none given: all) minus `--exclude` (none may match)."""

    def __init__(self, include: Sequence[str], exclude: Sequence[str]) -> None:
        """ConfigError for a pattern RE2 does not take (the options' check names it first)."""
        try:
            self._include = UrlPatterns(include)
            self._exclude = UrlPatterns(exclude)
        except ValueError as exc:
            raise ConfigError(f"--include or --exclude: a bad pattern ({exc})") from None

    @property
    def everything(self) -> bool:
        """No pattern given: every URL is wanted."""
        return not self._include and not self._exclude

    def wants(self, url: str) -> bool:
        """Whether `url` is to be requested (patterns are searched, as `re.search` does)."""
        if self._include and not self._include.search(url):
            return False
        return not (self._exclude and self._exclude.search(url))


class Reservoir(Generic[T]):
    """A uniform random sample of at most `size` items of a stream of unknown length.

    Algorithm R (Vitter 1985): the n-th item replaces a random kept one with probability
    size/n. `offer` hands back the item left out, so the caller can still report it.
    """

    def __init__(self, size: int, rng: random.Random) -> None:
        self._size = size
        self._rng = rng
        self._kept: list[T] = []
        self._seen = 0

    def offer(self, item: T) -> T | None:
        """Keep `item` or not; the item that is out of the sample now (None: none yet)."""
        self._seen += 1
        if len(self._kept) < self._size:
            self._kept.append(item)
            return None
        slot = self._rng.randrange(self._seen)
        if slot >= self._size:
            return item
        out, self._kept[slot] = self._kept[slot], item
        return out

    def take(self) -> list[T]:
        """The sample, emptied from the reservoir."""
        kept, self._kept = self._kept, []
        return kept
