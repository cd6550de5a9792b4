"""Records to JSON-ready dicts, in the field order of the report. Pure: no I/O.

SCHEMA_VERSION changelog (fields are only ever added within a version):
  1  first version: schema_version, tool, generated_at, complete, config, targets, sitemaps,
     urls, summary. Then added: urls[].status, final_url, final_status, redirects, elapsed_ms,
     method (URL checks); summary.by_sitemap; diff (with --baseline: counts, capped example
     lists, regressions); sitemaps[].from_state (with --state: answered 304, read from the
     kept copy); urls[].extensions and urls[].alternate_of (sitemap extensions, hreflang
     alternates no sitemap lists); run_findings and run_findings_omitted (return links);
     summary.alternates and summary.extensions; with --history: urls[].checked_at,
     urls[].carried (a verdict carried forward from an earlier run), urls[].not_modified
     (answered 304), summary.history; urls[].crawl and summary.coverage (with --crawl), and
     urls[] entries of pages only the crawl found (`sitemaps` empty); unreachable (no target
     answered at all: an outage, never a baseline); urls[].remapped and sitemaps[].remapped
     (with --remap or --serve: where the requests went); urls[].crawl_log and summary.logs
     (with --access-log).

See docs/reference/report.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import fields
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path

import orjson

from auditor._version import __version__
from auditor.config import AuditConfig, Target
from auditor.models import ExtensionFacts, Finding, SitemapRecord, TargetRecord, UrlRecord
from auditor.sitemap.plain_urls import Checked, Listed

SCHEMA_VERSION = 1
TOOL = {"name": "sitemap-auditor", "version": __version__}
REDACTED = "<redacted>"

Json = dict[str, object]


def utc_text(seconds: float) -> str:
    """A Unix time as the report writes times: `2026-11-23T12:00:00Z`."""
    moment = datetime.fromtimestamp(int(seconds), UTC)
    return moment.isoformat().replace("+00:00", "Z")


def dumps(value: object) -> bytes:
    """JSON bytes, with orjson.

    A string holding lone surrogates (from an undecodable file name) makes orjson refuse; the
    standard library then writes it with escapes: still valid JSON, never a crash.
    """
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


def finding_json(item: Finding, *, omit_url: bool = False) -> Json:
    """One finding; inside a URL's entry its `url` is the entry's and is left out."""
    out: Json = {"code": item.code.value, "severity": item.severity.value, "message": item.message}
    if item.url is not None and not omit_url:
        out["url"] = item.url
    if item.sitemap is not None:
        out["sitemap"] = item.sitemap
    if item.accepted:
        out["accepted"] = True
    if item.detail:
        out["detail"] = dict(item.detail)
    return out


def url_json(record: UrlRecord | Listed | Checked) -> Json:
    """One entry of `urls[]`; values as the sitemap wrote them, never coerced."""
    if isinstance(record, Checked):
        return checked_json(record)
    if isinstance(record, Listed):
        return listed_json(record)
    return record_json(record)


def record_json(record: UrlRecord) -> Json:
    """`url_json` of a UrlRecord."""
    out = _entry_fields({"loc": record.loc, "sitemaps": list(record.sitemaps)}, record)
    if record.alternate_of is not None:
        out["alternate_of"] = record.alternate_of
    if record.crawl is not None or record.crawl_log is not None:
        out.update(_crawled(record))
    facts = record.extensions
    if facts is not None:
        out["extensions"] = extensions_json(facts)
    check = record.check
    findings = record.findings
    if check is not None:
        out["status"] = check.status
        out["final_url"] = check.final_url
        out["final_status"] = check.final_status
        out["redirects"] = [{"url": hop.url, "status": hop.status} for hop in check.redirects]
        out["elapsed_ms"] = check.elapsed_ms
        out["method"] = check.method
        reason = check.not_indexable
        out["indexability"] = "indexable" if reason is None else "not_indexable"
        out["indexability_reason"] = reason
        if check.checked_at is not None:
            out["checked_at"] = utc_text(check.checked_at)
        if check.carried:
            out["carried"] = True
        if check.not_modified:
            out["not_modified"] = True
        findings += check.findings
    else:
        out["indexability"] = "not_checked"
        out["indexability_reason"] = None
    out["findings"] = [finding_json(item, omit_url=True) for item in findings]
    return out


def _entry_fields(out: Json, item: Listed | UrlRecord) -> Json:
    """`out` with the entry's own fields as its sitemap gave them (those it has)."""
    if item.line is not None:
        out["line"] = item.line
    if item.lastmod is not None:
        out["lastmod"] = item.lastmod
    if item.changefreq is not None:
        out["changefreq"] = item.changefreq
    if item.priority is not None:
        out["priority"] = item.priority
    return out


def listed_json(item: Listed) -> Json:
    """`url_json` of a Listed URL's record, without making the record: most entries of a run."""
    out = _entry_fields({"loc": item.loc, "sitemaps": [item.sitemap]}, item)
    out["indexability"] = "not_checked"
    out["indexability_reason"] = None
    out["findings"] = []
    return out


def checked_json(item: Checked) -> Json:
    """`url_json` of a Checked URL's record (a clean check), without making the record."""
    listed, clean = item
    out = _entry_fields({"loc": listed.loc, "sitemaps": [listed.sitemap]}, listed)
    out["status"] = clean.status
    out["final_url"] = listed.loc
    out["final_status"] = clean.status
    out["redirects"] = []
    out["elapsed_ms"] = clean.elapsed_ms
    out["method"] = clean.method
    out["indexability"] = "indexable"
    out["indexability_reason"] = None
    out["findings"] = []
    return out


def _crawled(record: UrlRecord) -> Json:
    """What the crawl (`crawl`) and the access logs (`crawl_log`) say of the URL, if anything."""
    out: Json = {}
    crawl = record.crawl
    if crawl is not None:
        out["crawl"] = {
            "depth": crawl.depth,
            "linked_from": crawl.linked_from,
            "links": crawl.links,
            "requested": crawl.requested,
        }
    logged = record.crawl_log
    if logged is not None:
        out["crawl_log"] = {
            "hits": logged.hits,
            "last": utc_text(logged.last) if logged.last is not None else None,
            "last_status": logged.last_status,
            "bots": list(logged.bots),
            "bing_hits": logged.bing_hits,
            "errors": logged.errors,
        }
    return out


def extensions_json(facts: ExtensionFacts) -> Json:
    """What an entry says in the extension namespaces: its alternates (the first few), counts."""
    out: Json = {}
    if facts.hreflang:
        out["hreflang"] = facts.hreflang
    if facts.alternates:
        out["alternates"] = [{"hreflang": lang, "href": href} for lang, href in facts.alternates]
    for kind, count in (("images", facts.images), ("videos", facts.videos), ("news", facts.news)):
        if count:
            out[kind] = count
    if facts.cut:
        out["cut"] = True
    return out


def sitemap_json(record: SitemapRecord) -> Json:
    """One entry of `sitemaps[]`; `from_state` only when true (the body came from --state)."""
    out: Json = {
        "url": record.url,
        "kind": record.kind.value if record.kind else None,
        "parent": record.parent,
        "depth": record.depth,
        "found_by": record.found_by.value,
        "status": record.status,
        "final_url": record.final_url,
        "redirects": [{"url": hop.url, "status": hop.status} for hop in record.redirects],
        "content_type": record.content_type,
        "bytes": record.bytes,
        "compressed": record.compressed,
        "url_count": record.url_count,
        "elapsed_ms": record.elapsed_ms,
        "findings": [finding_json(item) for item in record.findings],
        "findings_omitted": {code.value: n for code, n in sorted(record.findings_omitted.items())},
    }
    if record.from_state:
        out["from_state"] = True
    return out


def target_json(record: TargetRecord) -> Json:
    """One entry of `targets[]`."""
    return {
        "input": record.input,
        "kind": record.kind,
        "url": record.url,
        "robots": record.robots,
        "sitemaps": list(record.sitemaps),
        "probes": [
            {"url": probe.url, "found": probe.found, "status": probe.status}
            for probe in record.probes
        ],
        "findings": [finding_json(item) for item in record.findings],
    }


def config_json(config: AuditConfig) -> Json:
    """The run's configuration, header values redacted (they may hold cookies or tokens)."""
    out: Json = {}
    for field in fields(config):
        value = getattr(config, field.name)
        if field.name == "headers":
            value = {name: REDACTED for name, _ in value}
        out[field.name] = _plain(value)
    out["page_checks"] = [] if config.no_check else list(config.method.page_checks())
    return out


def _plain(value: object) -> object:
    match value:
        case Target():
            return value.input
        case Enum():
            return value.value
        case Path():
            return str(value)
        case tuple() | list():
            return [_plain(item) for item in value]
        case Mapping():
            return {str(key): _plain(item) for key, item in value.items()}
        case _:
            return value


def head_json(
    *, generated_at: datetime, complete: bool, config: AuditConfig, unreachable: bool = False
) -> Json:
    """The report's first fields, `schema_version` first (docs/explanation/design.md#report).

    `unreachable`: no target answered at all (auditor.results.reach); such a report is never a
    baseline.
    """
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": TOOL,
        "generated_at": generated_at.isoformat().replace("+00:00", "Z"),
        "complete": complete,
        "unreachable": unreachable,
        "config": config_json(config),
    }
