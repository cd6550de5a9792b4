"""The sitemap tree's rules: which documents to read, loops, depth, duplicates, caps.

The walker asks; this module answers with a Job to read or a Finding to report. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from auditor.codes import Code
from auditor.digests import DigestTable
from auditor.models import AlreadyRead, Finding, FoundBy, SitemapKind, StatusClass, finding
from auditor.tally import MAX_ENTRIES


@dataclass(frozen=True, slots=True)
class Job:
    """One document to read, and where it sits in the tree."""

    url: str
    key: str  # normalised URL: the identity for loops and duplicates
    target: int  # index of the target that led here
    found_by: FoundBy
    parent: str | None = None
    parent_kind: SitemapKind | None = None
    depth: int = 0  # sitemap indexes above this document
    ancestors: frozenset[str] = frozenset()  # keys of the index chain above, for loops
    path: Path | None = None  # a local file


class SitemapTree:
    """The visited set and the recursion rules of sitemap indexes (sitemaps.org, Google)."""

    def __init__(self, *, max_depth: int, max_sitemaps: int) -> None:
        self._max_depth = max_depth
        self._max_sitemaps = max_sitemaps
        self._visited: dict[str, str | None] = {}  # key -> URL of the index that listed it
        self._run_cap_reported = False

    def add_root(self, job: Job) -> Job | Finding | None:
        """A document named by a target, robots.txt or a probe.

        A Job to read; a Finding when the run's cap is reached (once); else None (known already).
        """
        if job.key in self._visited:
            return None
        if len(self._visited) >= self._max_sitemaps:
            return self._run_cap(job.parent, job.url)
        self._visited[job.key] = None
        return job

    def add_child(
        self, parent: Job, *, loc: str, key: str, parent_keys: frozenset[str], position: int
    ) -> Job | Finding | None:
        """The `position`-th `<sitemap>` of index `parent`: a Job, a Finding, or None.

        None: not read, and already reported (a cap reached).
        """
        ancestors = parent.ancestors | parent_keys
        if key in ancestors:
            return finding(Code.INDEX_LOOP, url=loc, sitemap=parent.url, ancestor=loc)
        if key in self._visited:
            return finding(
                Code.INDEX_DUPLICATE_CHILD,
                url=loc,
                sitemap=parent.url,
                first_parent=self._visited[key],
            )
        if parent.depth + 1 > self._max_depth:
            return finding(
                Code.INDEX_TOO_DEEP, url=loc, sitemap=parent.url, max_depth=self._max_depth
            )
        if position > MAX_ENTRIES:
            return None  # the index's own too_many_sitemaps finding covers these
        if len(self._visited) >= self._max_sitemaps:
            return self._run_cap(parent.url, loc)
        self._visited[key] = parent.url
        return Job(
            url=loc,
            key=key,
            target=parent.target,
            found_by=FoundBy.INDEX,
            parent=parent.url,
            parent_kind=SitemapKind.SITEMAPINDEX,
            depth=parent.depth + 1,
            ancestors=ancestors,
        )

    def _run_cap(self, parent: str | None, loc: str) -> Finding | None:
        if self._run_cap_reported:
            return None
        self._run_cap_reported = True
        message = f"More than {self._max_sitemaps} sitemaps in this run; the rest are not read"
        return finding(
            Code.INDEX_TOO_MANY_SITEMAPS,
            message,
            url=loc,
            sitemap=parent,
            scope="run",
            limit=self._max_sitemaps,
        )

    def check_hop(self, job: Job, key: str) -> Finding | AlreadyRead | None:
        """A redirect of `job` leads to `key`: refuse a loop; never read a document twice.

        Reached again from an index, the document is a duplicate child of it.
        """
        if key in job.ancestors or key == job.key:
            return finding(Code.INDEX_LOOP, url=job.url, sitemap=job.parent, via=key)
        if key in self._visited and job.parent_kind is not SitemapKind.SITEMAPINDEX:
            return AlreadyRead(key)
        if key in self._visited:
            return finding(
                Code.INDEX_DUPLICATE_CHILD,
                url=job.url,
                sitemap=job.parent,
                first_parent=self._visited[key],
                via_redirect=True,
            )
        self._visited[key] = job.parent
        return None


# A UrlDedup value: the first listing sitemap's ordinal, then the URL's check outcome.
_ORDINAL_BITS = 24
_ORDINAL_MASK = (1 << _ORDINAL_BITS) - 1
_FAILING_BIT = 1 << (_ORDINAL_BITS + 3)
_CLASSES = tuple(StatusClass)  # stored as index + 1 in 3 bits; 0: not checked (yet)


class UrlDedup:
    """Per URL digest (DESIGN §3): the sitemap that first listed it, and its check's outcome.

    Packed in one 32-bit value of a compact digest table, so that a duplicate listing can be
    counted for its sitemap too, once the URL's one check is done.
    """

    def __init__(self) -> None:
        self._table = DigestTable()
        self._sitemaps: list[str] = []
        self._ordinals: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._table)

    def first_listing(self, digest: int, sitemap: str) -> str | None:
        """Register `digest` as listed by `sitemap`; the first sitemap when it was listed before."""
        ordinal = self._ordinals.get(sitemap)
        if ordinal is None:
            ordinal = len(self._sitemaps) & _ORDINAL_MASK  # SitemapTree caps sitemaps far below
            self._ordinals[sitemap] = ordinal
            self._sitemaps.append(sitemap)
        first = self._table.setdefault(digest, ordinal)
        return None if first is None else self._sitemaps[first & _ORDINAL_MASK]

    def set_outcome(self, digest: int, status_class: StatusClass, *, failing: bool) -> None:
        """Keep how the URL's check went."""
        value = self._table.get(digest)
        if value is None:
            return
        outcome = (_CLASSES.index(status_class) + 1) << _ORDINAL_BITS
        self._table.replace(digest, (value & _ORDINAL_MASK) | outcome | (_FAILING_BIT * failing))

    def outcome(self, digest: int) -> tuple[StatusClass, bool] | None:
        """How the URL's check went: its status class and whether it failed; None: unchecked."""
        value = self._table.get(digest)
        index = ((value or 0) >> _ORDINAL_BITS) & 0b111
        if not index:
            return None
        return _CLASSES[index - 1], bool(value and value & _FAILING_BIT)
