"""A report's JSON values back to typed records: the reverse of auditor.report.encode.

Parsed from the fields of report.schema.json; a value this version cannot read (an unknown code,
a missing field) is a ReportReadError. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from auditor.codes import Code, Severity
from auditor.errors import ReportReadError
from auditor.models import (
    Finding,
    FoundBy,
    Indexability,
    NotIndexable,
    ProbeResult,
    Redirect,
    SitemapKind,
    SitemapRecord,
    TargetRecord,
)
from auditor.results.verdict import KnownCounts

Obj = Mapping[str, Any]


# Not frozen, as UrlRecord and CheckResult: one is made per URL read, and a frozen dataclass's
# __init__ costs three times as much. Never changed once made.
@dataclass(slots=True)
class ReportedUrl:
    """One entry of a report's `urls[]`: a distinct URL, its answer if requested, its findings.

    `findings` holds the listing's and the check's together, as the report keeps them.
    `checked` is False when the URL has no verdict (--no-check, filtered, not sampled); with
    --history, `carried` tells a verdict of an earlier run's, as of `checked_at`.
    """

    loc: str
    sitemaps: tuple[str, ...]
    findings: tuple[Finding, ...] = ()
    line: int | None = None
    lastmod: str | None = None
    changefreq: str | None = None
    priority: str | None = None
    checked: bool = False
    status: int | None = None  # the listed URL's own answer (a 301 for a redirect)
    final_url: str | None = None
    final_status: int | None = None
    redirects: tuple[Redirect, ...] = ()
    elapsed_ms: int | None = None
    method: str | None = None
    alternate_of: str | None = None  # no sitemap lists it: the URL naming it as an alternate
    extensions: Mapping[str, Any] | None = None  # the report's `extensions` of the entry
    not_indexable: NotIndexable | None = None  # why it cannot be indexed (checked URLs only)
    checked_at: str | None = None  # with --history: when its verdict's request was made
    carried: bool = False  # with --history: an earlier run's verdict, not requested this run
    crawl_log: Mapping[str, Any] | None = None  # with --access-log: the report's `crawl_log`

    @property
    def indexability(self) -> Indexability:
        """Indexable, not indexable (`not_indexable` says why), or not checked."""
        if not self.checked:
            return Indexability.NOT_CHECKED
        return Indexability.INDEXABLE if self.not_indexable is None else Indexability.NOT_INDEXABLE

    @property
    def sitemap(self) -> str:
        """The sitemap that listed the URL first."""
        return self.sitemaps[0] if self.sitemaps else ""

    @property
    def codes(self) -> tuple[Code, ...]:
        """Its distinct finding codes, in the report's order."""
        return codes_of(self.findings)

    @property
    def worst_severity(self) -> Severity | None:
        """The severity of its worst finding; None without findings."""
        return worst_of(self.findings)


@dataclass(frozen=True, slots=True)
class SitemapCounts:
    """The checked URLs one sitemap lists (the report's `summary.by_sitemap` entry)."""

    checked: int
    failing: int
    by_status_class: Mapping[str, int]
    indexable: int = 0


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """The report's `summary`: counts of the whole run."""

    sitemaps: int
    urls: int
    checked: int
    by_status_class: Mapping[str, int]
    by_code: Mapping[Code, int]
    by_severity: Mapping[Severity, int]
    duration_s: float
    urls_per_s: float
    entries: int = 0
    bytes: int = 0
    sitemaps_by_kind: Mapping[str, int] = field(default_factory=dict)
    by_sitemap: Mapping[str, SitemapCounts] = field(default_factory=dict)
    alternates: int = 0  # hreflang alternates no sitemap lists
    extensions: Mapping[str, int] = field(default_factory=dict)  # hreflang, images, videos, news
    accepted: Mapping[Code, int] = field(default_factory=dict)  # known issues, by code
    # Listed URLs by indexability, and the reasons of those that cannot be indexed.
    indexability: Mapping[Indexability, int] = field(default_factory=dict)
    not_indexable: Mapping[NotIndexable, int] = field(default_factory=dict)
    known: KnownCounts | None = None  # with --history: the site as last known (`history`)


def codes_of(findings: Iterable[Finding]) -> tuple[Code, ...]:
    """The distinct codes of `findings`, first seen first."""
    return tuple(dict.fromkeys(item.code for item in findings))


def worst_of(findings: Iterable[Finding]) -> Severity | None:
    """The worst severity among `findings`; None when there are none."""
    worst: Severity | None = None
    for item in findings:
        if worst is None or item.severity.rank > worst.rank:
            worst = item.severity
    return worst


def code_of(value: object) -> Code:
    """A finding code by its name; ReportReadError for one this version does not know."""
    try:
        return Code(str(value))
    except ValueError:
        raise ReportReadError(f"unknown finding code {value!r}") from None


def finding_of(obj: Obj, *, url: str | None = None) -> Finding:
    """One finding; inside a URL's entry its `url` is the entry's (left out in the report)."""
    detail = obj.get("detail")
    return Finding(
        code_of(obj["code"]),
        str(obj["message"]),
        obj.get("url", url),
        obj.get("sitemap"),
        dict(detail) if detail else None,
        obj.get("accepted") is True,
    )


def reason_of(value: object) -> NotIndexable | None:
    """An `indexability_reason` (None: none given); ReportReadError for one not known."""
    if value is None:
        return None
    try:
        return NotIndexable(str(value))
    except ValueError:
        raise ReportReadError(f"unknown indexability reason {value!r}") from None


def redirects_of(items: Iterable[Obj]) -> tuple[Redirect, ...]:
    """A redirect chain: each hop's URL and status."""
    return tuple(Redirect(str(hop["url"]), int(hop["status"])) for hop in items)


def url_of(obj: Obj) -> ReportedUrl:
    """One `urls[]` entry (ReportReadError when a required field is missing)."""
    get = obj.get
    try:
        loc = str(obj["loc"])
        findings = obj["findings"]
        hops = get("redirects")
        # Positional: this runs once per URL of the report.
        return ReportedUrl(
            loc,
            tuple(obj["sitemaps"]),
            tuple(finding_of(item, url=loc) for item in findings) if findings else (),
            get("line"),
            get("lastmod"),
            get("changefreq"),
            get("priority"),
            "status" in obj,  # the schema: status and its companions, or none of them
            get("status"),
            get("final_url"),
            get("final_status"),
            redirects_of(hops) if hops else (),
            get("elapsed_ms"),
            get("method"),
            get("alternate_of"),
            get("extensions"),
            reason_of(get("indexability_reason")),
            get("checked_at"),
            bool(get("carried")),
            get("crawl_log"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReportReadError(f"a urls[] entry this version cannot read ({exc!r})") from None


def sitemap_of(obj: Obj) -> SitemapRecord:
    """One `sitemaps[]` entry; `found_by` (optional in the schema) defaults by its parent."""
    try:
        kind = obj.get("kind")
        found_by = obj.get("found_by") or ("index" if obj.get("parent") else "target")
        omitted = obj.get("findings_omitted") or {}
        return SitemapRecord(
            url=str(obj["url"]),
            kind=SitemapKind(kind) if kind is not None else None,
            parent=obj.get("parent"),
            depth=int(obj["depth"]),
            found_by=FoundBy(found_by),
            status=obj.get("status"),
            final_url=obj.get("final_url"),
            redirects=redirects_of(obj.get("redirects") or ()),
            content_type=obj.get("content_type"),
            bytes=int(obj["bytes"]),
            compressed=bool(obj["compressed"]),
            url_count=int(obj["url_count"]),
            elapsed_ms=obj.get("elapsed_ms"),
            findings=tuple(finding_of(item) for item in obj["findings"]),
            findings_omitted={code_of(code): int(n) for code, n in omitted.items()},
            from_state=bool(obj.get("from_state", False)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReportReadError(f"a sitemaps[] entry this version cannot read ({exc!r})") from None


def target_of(obj: Obj) -> TargetRecord:
    """One `targets[]` entry."""
    try:
        return TargetRecord(
            input=str(obj["input"]),
            kind=str(obj["kind"]),
            url=str(obj["url"]),
            robots=obj.get("robots"),
            sitemaps=tuple(obj["sitemaps"]),
            probes=tuple(
                ProbeResult(str(p["url"]), bool(p["found"]), p.get("status")) for p in obj["probes"]
            ),
            findings=tuple(finding_of(item) for item in obj["findings"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ReportReadError(f"a targets[] entry this version cannot read ({exc!r})") from None


def _known_of(history: Obj | None) -> KnownCounts | None:
    """`summary.history`'s counts the verdict reads (None without --history)."""
    if history is None:
        return None
    return KnownCounts(
        not_indexable=int(history["last_known"]["not_indexable"]),
        requested=int(history["requested"]),
        never_checked=int(history["never_checked"]),
    )


def summary_of(obj: Obj) -> ReportSummary:
    """The report's `summary` object."""
    try:
        by_sitemap = {
            url: SitemapCounts(
                int(c["checked"]),
                int(c["failing"]),
                dict(c["by_status_class"]),
                int(c.get("indexable", 0)),
            )
            for url, c in (obj.get("by_sitemap") or {}).items()
        }
        indexability = obj.get("indexability") or {}
        return ReportSummary(
            sitemaps=int(obj["sitemaps"]),
            urls=int(obj["urls"]),
            checked=int(obj["checked"]),
            by_status_class={str(k): int(n) for k, n in obj["by_status_class"].items()},
            by_code={code_of(k): int(n) for k, n in obj["by_code"].items()},
            by_severity={Severity(k): int(n) for k, n in obj["by_severity"].items()},
            duration_s=float(obj["duration_s"]),
            urls_per_s=float(obj["urls_per_s"]),
            entries=int(obj.get("entries", 0)),
            bytes=int(obj.get("bytes", 0)),
            sitemaps_by_kind={
                str(k): int(n) for k, n in (obj.get("sitemaps_by_kind") or {}).items()
            },
            by_sitemap=by_sitemap,
            alternates=int(obj.get("alternates", 0)),
            extensions={str(k): int(n) for k, n in (obj.get("extensions") or {}).items()},
            accepted={code_of(k): int(n) for k, n in (obj.get("accepted") or {}).items()},
            indexability={kind: int(indexability.get(kind.value, 0)) for kind in Indexability},
            not_indexable={
                NotIndexable(k): int(n) for k, n in (indexability.get("by_reason") or {}).items()
            },
            known=_known_of(obj.get("history")),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReportReadError(f"a summary this version cannot read ({exc!r})") from None
