"""What a comparison keeps of each URL and each finding, from a run's records or a report.

A URL's facts: its status, final URL, indexability verdict, canonical and codes (the same
fields whether they come from this run's records or from the baseline report's JSON). A
finding not about one URL is a key: what it is about (a sitemap document, a target), its code,
and the entry it names. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from auditor.codes import Code
from auditor.models import Finding, Indexability, SitemapRecord, TargetRecord, UrlRecord
from auditor.net.redirects import codes_as_reported_now
from auditor.urls import parse_http_url, url_digest

# The families of codes a URL's check finds (the rest come from its listing): when one of two
# runs did not request a URL (--no-check, --sample, filters), only its listing is compared.
_CHECK_FAMILIES = frozenset({"http", "redirect", "net", "url", "internal"})
_CHECK_CODES = frozenset({Code.LASTMOD_BEHIND_PAGE})
OMITTED = "*"  # the entry of a key for findings counted past a cap, not kept one by one


def from_check(code: str) -> bool:
    """Whether a finding of this code comes from requesting the URL (not from its listing)."""
    return code.partition(".")[0] in _CHECK_FAMILIES or code in _CHECK_CODES


class UrlFacts(NamedTuple):
    """One URL as the comparison keeps it (a row of its table)."""

    digest: int  # of the normalised URL: the key that joins two runs
    loc: str
    checked: bool
    status: int | None
    final_url: str | None  # only where it differs from `loc`
    verdict: str  # "indexable", "not_checked", or the reason it is not indexable
    canonical: str | None  # where its canonical names another URL
    codes: str  # its distinct codes, sorted, space-separated ("" for none)
    sitemap: str | None  # the first sitemap listing it
    line: int | None


class Key(NamedTuple):
    """A finding not about one listed URL: a document's, a target's, or about the run's URLs."""

    kind: str  # "sitemap", "target", or "url" (hreflang return links and the like)
    subject: str  # the document's URL, the target as given, the URL
    code: str
    entry: str  # the entry it names ("" for the subject itself; OMITTED past a cap)


def url_facts(record: UrlRecord) -> UrlFacts | None:
    """A URL of this run; None when it has no digest (not an http(s) URL: nothing to join)."""
    if not record.digest:
        return None
    check = record.fresh_check  # a verdict carried forward (--history) was not checked now
    findings = record.findings + check.findings if check is not None else record.findings
    if check is None:
        status = final = None
        verdict = Indexability.NOT_CHECKED.value
    else:
        status, final = check.status, check.final_url
        reason = check.not_indexable
        verdict = Indexability.INDEXABLE.value if reason is None else reason.value
    return UrlFacts(
        record.digest,
        record.loc,
        check is not None,
        status,
        final if final != record.loc else None,
        verdict,
        _canonical(findings),
        _joined(item.code.value for item in findings),
        record.sitemaps[0] if record.sitemaps else None,
        record.line,
    )


def reported_url_facts(obj: Mapping[str, Any]) -> UrlFacts | None:
    """A URL of a baseline report (its raw `urls[]` entry); None when it is not http(s)."""
    loc = str(obj["loc"])
    parsed = parse_http_url(loc)
    # As the run's reader keys it (auditor.sitemap.document_reader): the normalised form.
    digest = url_digest(parsed.key) if parsed is not None else 0
    if not digest:
        return None
    checked = "status" in obj
    findings = obj.get("findings") or ()
    final = obj.get("final_url")
    verdict = obj.get("indexability_reason") or obj.get("indexability")
    if verdict is None:  # a report from before the verdict: its checked URLs read as indexable
        verdict = Indexability.INDEXABLE.value if checked else Indexability.NOT_CHECKED.value
    return UrlFacts(
        digest,
        loc,
        checked,
        obj.get("status"),
        final if final != loc else None,
        str(verdict),
        _canonical_of_json(findings),
        # A report made by an earlier version: its codes as this one reports them.
        _joined(codes_as_reported_now({str(item["code"]) for item in findings})),
        (obj.get("sitemaps") or [None])[0],
        obj.get("line"),
    )


def sitemap_keys(record: SitemapRecord) -> list[Key]:
    """A document's findings as keys: kept ones by the entry they name, counted ones by code."""
    keys = [Key("sitemap", record.url, item.code.value, item.url or "") for item in record.findings]
    keys += [Key("sitemap", record.url, code.value, OMITTED) for code in record.findings_omitted]
    return keys


def target_keys(record: TargetRecord) -> list[Key]:
    """A target's findings (discovery) as keys."""
    return [
        Key("target", record.input, item.code.value, item.url or "") for item in record.findings
    ]


def run_keys(findings: Iterable[Finding], omitted: Iterable[Code] = ()) -> list[Key]:
    """Findings about the run's URLs taken together (hreflang return links), by their URL."""
    keys = [Key("url", item.url or item.sitemap or "", item.code.value, "") for item in findings]
    return keys + [Key("url", "", code.value, OMITTED) for code in omitted]


def reported_keys(kind: str, subject: str, findings: Iterable[Mapping[str, Any]]) -> list[Key]:
    """`sitemap_keys`, `target_keys` or `run_keys` from a baseline report's JSON findings."""
    keys = []
    for item in findings:
        url, code = item.get("url"), str(item["code"])
        if kind == "url":
            keys.append(Key(kind, str(url or item.get("sitemap") or ""), code, ""))
        else:
            keys.append(Key(kind, subject, code, str(url or "")))
    return keys


def _canonical(findings: Iterable[Finding]) -> str | None:
    for item in findings:
        if item.code is Code.URL_CANONICAL_ELSEWHERE and item.detail:
            return str(item.detail.get("canonical") or "") or None
    return None


def _canonical_of_json(findings: Iterable[Mapping[str, Any]]) -> str | None:
    for item in findings:
        if item["code"] == Code.URL_CANONICAL_ELSEWHERE:
            return str((item.get("detail") or {}).get("canonical") or "") or None
    return None


def _joined(codes: Iterable[str]) -> str:
    return " ".join(sorted(set(codes)))
