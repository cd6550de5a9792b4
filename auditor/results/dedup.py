"""URL dedup across the whole tree: one compact digest per URL, and its check's outcome.

Pure: no I/O.

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Generic, NamedTuple, TypeVar

from auditor.models import StatusClass
from auditor.results.digest_table import DigestTable

L = TypeVar("L", bound=Hashable)  # who lists a URL: a sitemap's URL, or a richer record of it

# A UrlDedup value: the first listing sitemap's ordinal, then the URL's check outcome.
_ORDINAL_BITS = 24
_ORDINAL_MASK = (1 << _ORDINAL_BITS) - 1
_FAILING_BIT = 1 << (_ORDINAL_BITS + 3)
_INDEXABLE_BIT = 1 << (_ORDINAL_BITS + 4)
_CLASSES = tuple(StatusClass)  # stored as index + 1 in 3 bits; 0: not checked (yet)


class UrlDedup(Generic[L]):
    """Per URL digest: the sitemap that first listed it, and its check's outcome.

    Packed in one 32-bit value of a compact digest table, so that a duplicate listing can be
    counted for its sitemap too, once the URL's one check is done.

    See docs/explanation/design.md#pipeline.
    """

    def __init__(self) -> None:
        self._table = DigestTable()
        self._listers: list[L] = []
        self._ordinals: dict[L, int] = {}

    def __len__(self) -> int:
        return len(self._table)

    def __contains__(self, digest: object) -> bool:
        """Whether a sitemap of the run lists the URL of `digest`."""
        return isinstance(digest, int) and self._table.get(digest) is not None

    def first_listing(self, digest: int, lister: L) -> L | None:
        """Register `digest` as listed by `lister`; who listed it first, when someone did."""
        ordinal = self._ordinals.get(lister)
        if ordinal is None:
            ordinal = len(self._listers) & _ORDINAL_MASK  # SitemapTree caps sitemaps far below
            self._ordinals[lister] = ordinal
            self._listers.append(lister)
        first = self._table.setdefault(digest, ordinal)
        return None if first is None else self._listers[first & _ORDINAL_MASK]

    def set_outcome(
        self, digest: int, status_class: StatusClass, *, failing: bool, indexable: bool
    ) -> None:
        """Keep how the URL's check went."""
        value = self._table.get(digest)
        if value is None:
            return
        outcome = (_CLASSES.index(status_class) + 1) << _ORDINAL_BITS
        outcome |= (_FAILING_BIT * failing) | (_INDEXABLE_BIT * indexable)
        self._table.replace(digest, (value & _ORDINAL_MASK) | outcome)

    def outcome(self, digest: int) -> UrlOutcome | None:
        """How the URL's check went; None: not checked."""
        value = self._table.get(digest) or 0
        index = (value >> _ORDINAL_BITS) & 0b111
        if not index:
            return None
        return UrlOutcome(
            _CLASSES[index - 1], bool(value & _FAILING_BIT), bool(value & _INDEXABLE_BIT)
        )


class UrlOutcome(NamedTuple):
    """How a URL's one check went, for each sitemap that lists it."""

    status_class: StatusClass
    failing: bool  # an error was found
    indexable: bool
