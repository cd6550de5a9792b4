"""One document's bytes in, its entries validated out: the stream, then every value rule.

This is the CPU-heavy part of reading a sitemap (decompression, XML, the value rules, the URL
digest), the same whether it runs in the audit's process or in a parse helper
(auditor.processes.parse_child, `--workers`). Pure: no I/O. What needs the run's state (the
tree, the dedup table, robots.txt look-ups, the tally) stays with the reader; what goes to it
is small plain tuples, cheap to pickle.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import NamedTuple, cast

from auditor.models import ExtensionFacts, Finding, SitemapKind
from auditor.sitemap.body_stream import DocumentStream
from auditor.sitemap.extensions import validate_extensions
from auditor.sitemap.extensions.hreflang import Cluster
from auditor.sitemap.parse.events import ParseEvent, RootFound, SitemapEntry, UrlEntry
from auditor.sitemap.validate import EntryContext, validate_sitemap_entry, validate_url_entry
from auditor.urls import Scope, parse_http_url, url_digest


@dataclass(frozen=True, slots=True)
class DocumentSpec:
    """What validating one document's entries needs to know, decided before its body is read."""

    url: str
    now: datetime
    content_encoding: str | None
    max_bytes: int
    # The location rule (sitemaps.org: Sitemap file location) for a urlset and for an index at
    # the document's final URL; None: no rule (no usable URL).
    urlset_scope: Scope | None = None
    index_scope: Scope | None = None
    local: bool = False  # a local file: its first URL's origin is the scope, nothing is waived
    fingerprint: bool = False  # keep a digest of the document (a probe: read elsewhere too?)


class ValidatedUrl(NamedTuple):
    """One `<url>` with its findings: what the reader needs to count, dedup and record it."""

    loc: str | None
    line: int
    lastmod: str | None
    changefreq: str | None
    priority: str | None
    findings: tuple[Finding, ...]
    digest: int  # of the normalised URL; of the text as written when it does not parse
    parsed: bool  # an http(s) URL that can be requested
    waivable: str | None  # off scope: the origin whose robots.txt may waive the rule
    cluster: Cluster | None = None  # the hreflang versions it names (the run's return links)
    extensions: ExtensionFacts | None = None  # what the report keeps of its extensions
    news: int = 0  # its news:news (a news sitemap holds at most 1,000)


class ValidatedSitemap(NamedTuple):
    """One `<sitemap>` of an index with its findings, and the child's key when it can be read."""

    loc: str | None
    lastmod: str | None
    findings: tuple[Finding, ...]
    key: str | None
    waivable: str | None = None  # off scope: the origin whose robots.txt may waive the rule


Validated = ValidatedUrl | ValidatedSitemap | RootFound | Finding


class DocumentValidator:
    """One document's stream and rules: feed it the body, take its validated entries."""

    def __init__(self, spec: DocumentSpec) -> None:
        self._spec = spec
        self._stream = DocumentStream(
            content_encoding=spec.content_encoding,
            max_bytes=spec.max_bytes,
            fingerprint=spec.fingerprint,
        )
        self._context = EntryContext(spec.url, spec.now)
        self._scope_pending = spec.local  # set from the first URL

    @property
    def stopped(self) -> bool:
        """No more input is wanted: the end, the size cap, or a broken document."""
        return self._stream.stopped

    @property
    def parsed_bytes(self) -> int:
        """Decompressed bytes parsed so far."""
        return self._stream.bytes

    @property
    def compressed(self) -> bool:
        """The document itself is a gzip file."""
        return self._stream.compressed

    @property
    def fingerprint(self) -> str | None:
        """A digest of the document's bytes, when the spec asked for one."""
        return self._stream.fingerprint

    def feed(self, chunk: bytes) -> Iterator[list[Validated]]:
        """Take one chunk of the body; yield what it completes, a piece (64 KiB) at a time."""
        return self._validated(self._stream.feed(chunk))

    def close(self) -> Iterator[list[Validated]]:
        """The body ended."""
        return self._validated(self._stream.close())

    def _validated(self, pieces: Iterable[list[ParseEvent]]) -> Iterator[list[Validated]]:
        for events in pieces:
            yield [self._validate(event) for event in events]

    def _validate(self, event: ParseEvent) -> Validated:
        match event:
            case UrlEntry():
                return self._url(event)
            case SitemapEntry():
                verdict = validate_sitemap_entry(event, self._context)
                url = verdict.url
                key = url.key if url is not None and event.loc is not None else None
                waivable = (
                    url.origin if verdict.off_scope and url and not self._spec.local else None
                )
                return ValidatedSitemap(event.loc, event.lastmod, verdict.findings, key, waivable)
            case RootFound():
                index = event.kind is SitemapKind.SITEMAPINDEX
                scope = self._spec.index_scope if index else self._spec.urlset_scope
                # RSS 2.0 (a root without a namespace) dates its items in RFC 822, not W3C.
                rss2 = event.kind is SitemapKind.RSS and event.namespace is None
                feed = event.kind in (SitemapKind.RSS, SitemapKind.ATOM)
                context = replace(self._context, rfc822_dates=rss2, feed=feed)
                self._context = replace(context, scope=scope) if scope is not None else context
                return event
            case _:
                return event

    def _url(self, entry: UrlEntry) -> ValidatedUrl:
        if self._scope_pending and entry.loc:
            first = parse_http_url(entry.loc)
            if first is not None:
                self._scope_pending = False
                scope = Scope.of(first, with_folder=False)
                self._context = replace(self._context, scope=scope)
        verdict = validate_url_entry(entry, self._context)
        url = verdict.url
        waivable = url.origin if verdict.off_scope and url and not self._spec.local else None
        # Of the normalised URL, else of the text as written.
        digest = verdict.digest or (url_digest(entry.loc) if entry.loc else 0)
        if entry.extensions is None or not entry.loc:
            return ValidatedUrl(
                entry.loc,
                entry.line,
                entry.lastmod,
                entry.changefreq,
                entry.priority,
                verdict.findings,
                digest,
                url is not None,
                waivable,
            )
        context = self._context
        judged = validate_extensions(
            entry.extensions,
            loc=entry.loc,
            page=url,
            digest=digest,
            sitemap=context.sitemap,
            now=context.now,
        )
        return ValidatedUrl(
            entry.loc,
            entry.line,
            entry.lastmod,
            entry.changefreq,
            entry.priority,
            verdict.findings + judged.findings,
            digest,
            url is not None,
            waivable,
            judged.cluster,
            judged.facts,
            judged.news,
        )


# On the wire between a parse helper and the audit (auditor.processes: parse_pool, parse_child).

STOPPED = "stopped"  # the document wants no more input


@dataclass(frozen=True, slots=True)
class Ended:
    """A helper's last frame for a document."""

    bytes: int
    compressed: bool
    fingerprint: str | None = None


# A ValidatedUrl travels as a plain tuple: a fifth of the pickling (most frames are URLs).
_as_url = cast(
    "Callable[[tuple[object, ...]], ValidatedUrl]", functools.partial(tuple.__new__, ValidatedUrl)
)


def pack_piece(piece: list[Validated]) -> list[object]:
    """A piece as sent by a helper."""
    return [tuple(item) if type(item) is ValidatedUrl else item for item in piece]


def unpack_piece(packed: list[object]) -> list[Validated]:
    """The piece `pack_piece` packed."""
    return [_as_url(item) if type(item) is tuple else cast("Validated", item) for item in packed]
