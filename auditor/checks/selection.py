"""Which URLs to request: `--include`/`--exclude` patterns and `--sample N`. Pure: no I/O.

Every URL is still validated and reported; these only decide which ones are requested.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Generic, TypeVar

T = TypeVar("T")


class UrlFilter:
    """`--include` (any may match; none given: all) minus `--exclude` (none may match)."""

    def __init__(self, include: Sequence[str], exclude: Sequence[str]) -> None:
        self._include = [re.compile(pattern) for pattern in include]
        self._exclude = [re.compile(pattern) for pattern in exclude]

    @property
    def everything(self) -> bool:
        """No pattern given: every URL is wanted."""
        return not self._include and not self._exclude

    def wants(self, url: str) -> bool:
        """Whether `url` is to be requested (patterns are searched, as `re.search` does)."""
        if self._include and not any(pattern.search(url) for pattern in self._include):
            return False
        return not any(pattern.search(url) for pattern in self._exclude)


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
