"""The sitemap tree's rules: which documents to read, loops, depth, duplicates, caps.

The walker asks; this module answers with a Job to read or a Finding to report. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from auditor.codes import Code
from auditor.limits import MAX_ENTRIES
from auditor.models import AlreadyRead, Finding, FoundBy, SitemapKind, finding


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
    # The scope of the index that listed it (`scheme://host/folder/`): its URLs may be anywhere
    # under it, as the index's own would (the index is what was submitted).
    listed_under: str | None = None
    probed: bool = False  # found by probing, or listed by what was: our guess, not the site's
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
        self,
        parent: Job,
        *,
        loc: str,
        key: str,
        parent_keys: frozenset[str],
        position: int,
        listed_under: str | None = None,
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
            listed_under=listed_under,
            probed=parent.probed,
        )

    @property
    def capped(self) -> bool:
        """Whether --max-sitemaps left documents unread."""
        return self._run_cap_reported

    def _run_cap(self, parent: str | None, loc: str) -> Finding | None:
        """The run's own --max-sitemaps, reached: the run's limit, never the site's fault."""
        if self._run_cap_reported:
            return None
        self._run_cap_reported = True
        message = f"More than {self._max_sitemaps} sitemaps in this run; the rest are not read"
        return finding(
            Code.RUN_LIMIT_REACHED,
            message,
            url=loc,
            sitemap=parent,
            option="--max-sitemaps",
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
