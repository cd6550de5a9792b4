"""One document's bytes in, its entries validated out: the stream, then every value rule.

This is the CPU-heavy part of reading a sitemap (decompression, XML, the value rules, the URL
digest), the same whether it runs in the audit's process or in a parse helper
(auditor.processes.parse_child, `--workers`). Pure: no I/O. What needs the run's state (the
tree, the dedup table, robots.txt look-ups, the tally) stays with the reader; what goes to it
is small plain tuples, cheap to pickle.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, cast

from auditor.limits import MAX_LOC_CHARS
from auditor.models import ExtensionFacts, Finding, SitemapKind
from auditor.sitemap.body_stream import DocumentStream
from auditor.sitemap.dates import plain_lastmod_s
from auditor.sitemap.extensions import validate_extensions
from auditor.sitemap.extensions.hreflang import Cluster
from auditor.sitemap.parse.events import ParseEvent, RootFound, SitemapEntry, UrlEntry
from auditor.sitemap.validate import (
    EntryContext,
    plain_locs,
    plain_values,
    validate_sitemap_entry,
    validate_url_entry,
)
from auditor.urls import Scope, parse_http_url, url_digest

if TYPE_CHECKING:  # an entry's extensions are judged when it has any (most have none)
    from auditor.sitemap.extensions.hreflang import Cluster


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


class PlainUrl(NamedTuple):
    """A `<url>` every rule accepts as it is (`plain_locs`, `plain_lastmod_s`).

    Its key is its `<loc>`; `hour`: its lastmod's earliest hour (Unix hours), for the tally.
    """

    loc: str
    line: int
    lastmod: str | None
    changefreq: str | None
    priority: str | None
    digest: int
    hour: int | None


class ValidatedSitemap(NamedTuple):
    """One `<sitemap>` of an index with its findings, and the child's key when it can be read."""

    loc: str | None
    lastmod: str | None
    findings: tuple[Finding, ...]
    key: str | None
    waivable: str | None = None  # off scope: the origin whose robots.txt may waive the rule


Validated = PlainUrl | ValidatedUrl | ValidatedSitemap | RootFound | Finding


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
        # A urlset's plain `<loc>`s, once its scope is known (None: every entry is judged).
        self._plain: re.Pattern[str] | None = None
        self._latest_s = int(self._context.latest.timestamp())  # a lastmod after: the future

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
                plain = event.kind is SitemapKind.URLSET and scope is not None
                self._plain = plain_locs(scope) if plain and scope is not None else None
                return event
            case _:
                return event

    def _url(self, entry: UrlEntry) -> PlainUrl | ValidatedUrl:
        plain = self._plain
        if plain is not None and not entry.problems and entry.extensions is None:
            found = self._plain_url(plain, entry)
            if found is not None:
                return found
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

    def _plain_url(self, plain: re.Pattern[str], entry: UrlEntry) -> PlainUrl | None:
        """The entry as a PlainUrl when every rule accepts it as it is (None: judge it)."""
        loc, lastmod = entry.loc, entry.lastmod
        if (
            not loc
            or entry.loc_cut
            or len(loc) >= MAX_LOC_CHARS
            or plain.fullmatch(loc) is None
            or "/." in loc  # a dot segment: normalised away
            or not plain_values(entry.changefreq, entry.priority)
        ):
            return None
        hour = None
        if lastmod is not None:
            earliest_s = plain_lastmod_s(lastmod)
            if earliest_s is None or earliest_s > self._latest_s:
                return None
            hour = earliest_s // 3600
        digest = url_digest(loc)
        return _as_plain((loc, entry.line, lastmod, entry.changefreq, entry.priority, digest, hour))


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


_as_plain = cast(
    "Callable[[tuple[object, ...]], PlainUrl]", functools.partial(tuple.__new__, PlainUrl)
)
_PLAIN_FIELDS = len(PlainUrl._fields)


def pack_piece(piece: list[Validated]) -> list[object]:
    """A piece as sent by a helper."""
    return [_packed(item) for item in piece]


def _packed(item: Validated) -> object:
    if isinstance(item, ValidatedUrl | PlainUrl):
        return tuple(item)
    return item


def unpack_piece(packed: list[object]) -> list[Validated]:
    """The piece `pack_piece` packed."""
    return [_unpacked(item) for item in packed]


def _unpacked(item: object) -> Validated:
    if type(item) is not tuple:
        return cast("Validated", item)
    return _as_plain(item) if len(item) == _PLAIN_FIELDS else _as_url(item)
