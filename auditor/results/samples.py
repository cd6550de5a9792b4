"""Bounded samples for the HTML report and the terminal, fed by the sink record by record.

A few examples per code, a response-time histogram and the sitemap rows: nothing here grows
with the number of URLs, so a 1M-URL audit gives a report of bounded size. Pure: no I/O.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from itertools import islice

from auditor.codes import Code, Severity
from auditor.models import (
    Finding,
    Indexability,
    NotIndexable,
    Redirect,
    SitemapKind,
    SitemapRecord,
    TargetRecord,
    UrlRecord,
)
from auditor.sitemap.plain_urls import Checked, Listed

EXAMPLES_PER_CODE = 50
SITEMAP_ROWS = 1_000
# Network strings are cut here when kept (their length is kept too, so the report can say so).
MAX_TEXT_CHARS = 200
MAX_DETAIL_ITEMS = 8
MAX_DETAIL_CHARS = 120  # each detail value
MAX_HOPS = 4  # of a redirect chain; the count of the rest is kept
MAX_HOP_CHARS = 100  # the URLs inside a chain (the listed and the final URL get MAX_TEXT_CHARS)
_ERROR_CODES = frozenset(code for code in Code if code.severity is Severity.ERROR)
# Upper bounds of the response-time buckets, in ms; the last bucket holds everything slower.
TIME_BUCKETS_MS = (100, 250, 500, 1_000, 2_000, 5_000, 10_000)


@dataclass(frozen=True, slots=True)
class Text:
    """A string from the network, cut to MAX_TEXT_CHARS; `length` is the original's."""

    value: str
    length: int

    @property
    def cut(self) -> int:
        """How many characters were left out."""
        return self.length - len(self.value)


def clip(text: str, limit: int = MAX_TEXT_CHARS) -> Text:
    """`text` cut to `limit` characters."""
    return Text(text[:limit], len(text))


@dataclass(frozen=True, slots=True)
class KeptHop:
    """One hop of a redirect chain as kept: the URL asked and its answer."""

    url: Text
    status: int


@dataclass(frozen=True, slots=True)
class Example:
    """One finding kept as an example of its code, with what the URL answered."""

    code: Code
    message: Text
    url: Text | None = None
    sitemap: Text | None = None
    detail: tuple[tuple[str, Text], ...] = ()
    status: int | None = None
    final_url: Text | None = None
    final_status: int | None = None
    hops: tuple[KeptHop, ...] = ()
    hops_left_out: int = 0
    not_indexable: NotIndexable | None = None  # why its URL cannot be indexed
    indexability: Indexability | None = None  # of its URL; None: not about a listed URL


@dataclass(frozen=True, slots=True)
class SitemapRow:
    """One document of the tree as the report's sitemap table shows it."""

    url: str  # at most limits.MAX_FIELD_CHARS, and at most `row_cap` rows are kept
    kind: SitemapKind | None
    parent: str | None
    depth: int
    status: int | None
    url_count: int
    by_severity: Mapping[Severity, int]  # its own findings, kept and omitted
    codes: tuple[Code, ...]  # its own codes, worst first
    order: int  # 0 for the first document read

    @property
    def errors(self) -> int:
        """Its own error findings."""
        return self.by_severity[Severity.ERROR]


class Samples:
    """Examples per code, response times, sitemap rows and the counts the verdict needs.

    `add_urls` is on the hot path (every URL of the run): beyond one histogram increment it
    only looks further at records that have findings.
    """

    def __init__(
        self, *, examples_per_code: int = EXAMPLES_PER_CODE, sitemap_rows: int = SITEMAP_ROWS
    ) -> None:
        self.examples_per_code = examples_per_code
        self.row_cap = sitemap_rows
        self.examples: dict[Code, list[Example]] = {}  # each the first by URL
        self._keys: dict[Code, list[str]] = {}  # the kept examples' URLs, in order
        self._last: dict[Code, str] = {}  # the last of them: a URL after it is not kept
        self.times = [0] * (len(TIME_BUCKETS_MS) + 1)  # URL answers per response-time bucket
        self.urls_with_errors = 0  # distinct URLs with an error (their listing's or their check's)
        # Per sitemap (the first listing): its URLs that have an error. At most one key per
        # sitemap of the run, like Summary.by_sitemap.
        self.url_errors: Counter[str] = Counter()
        self.erring_sitemaps: set[str] = set()  # documents with errors of their own
        self.documents = 0
        self._broken_rows: list[SitemapRow] = []
        self._other_rows: list[SitemapRow] = []

    def add_urls(self, records: Iterable[UrlRecord | Listed | Checked]) -> None:
        """A batch of URL records, as the sink receives them."""
        times, edges = self.times, TIME_BUCKETS_MS
        for record in records:
            if not isinstance(record, UrlRecord):  # a tuple with nothing to say
                if isinstance(record, Checked):
                    times[bisect_right(edges, record.clean.elapsed_ms)] += 1
                continue
            check = record.fresh_check  # the HTML's samples are this run's requests
            if check is not None:
                elapsed = check.elapsed_ms
                if elapsed is not None:
                    times[bisect_right(edges, elapsed)] += 1
                if check.findings:
                    self._add_url(record)
                    continue
            if record.findings:
                self._add_url(record)

    def _add_url(self, record: UrlRecord) -> None:
        check = record.fresh_check
        findings = record.findings + check.findings if check is not None else record.findings
        examples, cap = self.examples, self.examples_per_code
        # An alternate no sitemap lists: the sitemap naming it, as its findings say.
        sitemap = record.sitemaps[0] if record.sitemaps else findings[0].sitemap
        erring = False
        loc = record.loc
        for item in findings:
            code = item.code
            erring = erring or code in _ERROR_CODES
            kept = examples.get(code)
            if kept is not None and len(kept) >= cap and loc >= self._last[code]:
                continue  # the usual case at scale: one lookup, two comparisons
            example = _example(item, url=loc, sitemap=sitemap)
            if check is not None:
                example = _with_answer(
                    example,
                    status=check.status,
                    final_url=check.final_url,
                    final_status=check.final_status,
                    redirects=check.redirects,
                )
                example = replace(
                    example, indexability=check.indexability, not_indexable=check.not_indexable
                )
            else:
                example = replace(example, indexability=Indexability.NOT_CHECKED)
            self._keep(example, loc)
        if erring and record.sitemaps:  # an alternate no sitemap lists is not one of the URLs
            self.urls_with_errors += 1
            self.url_errors[record.sitemaps[0]] += 1

    def add_findings(self, findings: Iterable[Finding]) -> None:
        """Findings about the run's URLs taken together (hreflang return links)."""
        for item in findings:
            self._keep(_example(item, url=item.url, sitemap=item.sitemap), item.url or "")

    def add_sitemap(self, record: SitemapRecord) -> None:
        """One document of the tree (robots.txt included)."""
        row = _row(record, order=self.documents)
        self.documents += 1
        if row.errors:
            self.erring_sitemaps.add(record.url)
            if len(self._broken_rows) < self.row_cap:
                self._broken_rows.append(row)
        elif len(self._other_rows) < self.row_cap:
            self._other_rows.append(row)
        for item in record.findings:
            if item.url is not None:  # about an entry: the document lists it
                self._keep(_example(item, url=item.url, sitemap=record.url), item.url)
                continue
            # About the document itself: where it is listed, and how it answered.
            hops = record.redirects
            example = _with_answer(
                _example(item, url=record.url, sitemap=record.parent),
                status=hops[0].status if hops else record.status,  # its own first answer
                final_url=record.final_url,
                final_status=record.status,
                redirects=hops,
            )
            self._keep(example, record.url)

    def add_target(self, record: TargetRecord) -> None:
        """A target's own findings (discovery)."""
        for item in record.findings:
            self._keep(_example(item, url=item.url or record.url), item.url or record.url)

    def _keep(self, example: Example, key: str) -> None:
        """Keep `example` if it is among the first `examples_per_code` of its code by `key`.

        The first by URL, not the first found: the same examples on every run of the same site,
        whatever order its answers came in.
        """
        code = example.code
        kept, keys = self.examples.setdefault(code, []), self._keys.setdefault(code, [])
        at = bisect_right(keys, key)
        if at >= self.examples_per_code:
            return
        keys.insert(at, key)
        kept.insert(at, example)
        if len(kept) > self.examples_per_code:
            keys.pop()
            kept.pop()
        self._last[code] = keys[-1]

    def sitemap_rows(self, failing: Mapping[str, int] | None = None) -> list[SitemapRow]:
        """At most `row_cap` rows: broken documents first, then in the order they were read.

        A document is broken when it has errors of its own, or lists URLs with errors (kept
        here), or URLs whose check failed (`failing`, per sitemap, relistings included).
        """
        failing = failing or {}

        def key(row: SitemapRow) -> tuple[bool, int]:
            url = row.url
            broken = bool(row.errors or self.url_errors[url] or failing.get(url))
            return (not broken, row.order)

        return sorted(self._broken_rows + self._other_rows, key=key)[: self.row_cap]


def _example(item: Finding, *, url: str | None, sitemap: str | None = None) -> Example:
    pairs = islice((item.detail or {}).items(), MAX_DETAIL_ITEMS)
    detail = tuple((str(key), clip(str(value), MAX_DETAIL_CHARS)) for key, value in pairs)
    return Example(
        item.code,
        clip(item.message),
        url=clip(url) if url is not None else None,
        sitemap=clip(sitemap) if sitemap is not None else None,
        detail=detail,
    )


def _with_answer(
    example: Example,
    *,
    status: int | None,
    final_url: str | None,
    final_status: int | None,
    redirects: tuple[Redirect, ...],
) -> Example:
    """The example with how its URL answered: status, and where its redirects led."""
    hops = tuple(KeptHop(clip(hop.url, MAX_HOP_CHARS), hop.status) for hop in redirects[:MAX_HOPS])
    return replace(
        example,
        status=status,
        final_url=clip(final_url) if final_url is not None and redirects else None,
        final_status=final_status if redirects else None,
        hops=hops,
        hops_left_out=max(0, len(redirects) - MAX_HOPS),
    )


def _row(record: SitemapRecord, *, order: int) -> SitemapRow:
    codes: Counter[Code] = Counter(item.code for item in record.findings)
    codes.update(record.findings_omitted)
    by_severity = dict.fromkeys(Severity, 0)
    for code, count in codes.items():
        by_severity[code.severity] += count
    worst_first = sorted(codes, key=lambda code: (-code.severity.rank, -codes[code], code.value))
    return SitemapRow(
        url=record.url,
        kind=record.kind,
        parent=record.parent,
        depth=record.depth,
        status=record.status,
        url_count=record.url_count,
        by_severity=by_severity,
        codes=tuple(worst_first),
        order=order,
    )
