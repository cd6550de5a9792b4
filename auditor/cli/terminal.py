"""The end-of-run summary for the terminal: a rich table on a TTY, plain lines otherwise.

Builds what to show; the CLI prints it. The verdict line is the HTML report's
(auditor.results.verdict).
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from auditor import __version__
from auditor.codes import Code, Severity
from auditor.models import Indexability
from auditor.pipeline import AuditResult
from auditor.results.verdict import Outcome

PROG = "sitemap-audit"
TOP_CODES = 10
EXAMPLE_CHARS = 70  # an example URL is cut here in the terminal; the reports have it whole
_STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTICE: "cyan"}
_VERDICT_STYLES = {
    Outcome.PASS: "bold green",
    Outcome.FAIL: "bold red",
    Outcome.INCOMPLETE: "bold yellow",
    Outcome.FAILED: "bold yellow",
}


def headline(result: AuditResult, *, no_check: bool) -> str:
    """What was read and requested, and how long it took."""
    summary = result.summary
    mode = "sitemaps only (--no-check)"
    if not no_check:
        classes = " ".join(f"{key} {n}" for key, n in sorted(summary.by_status_class.items()))
        mode = f"{summary.checked} checked ({classes or 'none'})"
    return (
        f"{PROG} {__version__}: {summary.sitemaps} documents, {summary.urls} distinct URLs "
        f"({summary.entries} entries), {mode}, {result.duration_s:.1f} s"
    )


def extensions_line(result: AuditResult) -> str | None:
    """What the entries say in the sitemap extensions, when any does; else None."""
    summary = result.summary
    counts = summary.extensions
    parts = []
    if counts["hreflang_urls"]:
        parts.append(
            f"hreflang on {_count(counts['hreflang_urls'], 'URL')} "
            f"({_count(counts['hreflang_links'], 'link')})"
        )
    if summary.alternates:
        parts.append(f"{_count(summary.alternates, 'alternate')} no sitemap lists")
    for key, word in (("images", "image"), ("videos", "video"), ("news", "news article")):
        if counts[key]:
            parts.append(_count(counts[key], word))
    return "extensions: " + ", ".join(parts) if parts else None


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def top_codes(result: AuditResult) -> list[tuple[Code, int, str]]:
    """The codes to fix first (errors first, then by count), each with one example URL."""
    ranked = sorted(
        ((code, n) for code, n in result.summary.by_code.items() if n),
        key=lambda pair: (-pair[0].severity.rank, -pair[1], pair[0].value),
    )
    rows = []
    for code, n in ranked[:TOP_CODES]:
        examples = result.samples.examples.get(code) or []
        url = examples[0].url if examples else None
        rows.append((code, n, _short(url.value) if url is not None else ""))
    return rows


def _short(text: str) -> str:
    # One line per code: control characters from the network would break the table.
    text = "".join(char if char.isprintable() else "?" for char in text)
    return text if len(text) <= EXAMPLE_CHARS else text[: EXAMPLE_CHARS - 1] + "…"


def _more_codes(result: AuditResult) -> int:
    return sum(1 for n in result.summary.by_code.values() if n) - TOP_CODES


def indexability_line(result: AuditResult) -> str | None:
    """How many listed URLs can be indexed, and why the others cannot; None: none checked."""
    summary = result.summary
    verdicts = summary.indexability
    judged = verdicts[Indexability.INDEXABLE] + verdicts[Indexability.NOT_INDEXABLE]
    if not judged:
        return None
    line = f"indexable: {verdicts[Indexability.INDEXABLE]:,} of {judged:,} checked listed URLs"
    reasons = sorted(summary.not_indexable.items(), key=lambda pair: (-pair[1], pair[0].value))
    if reasons:
        line += "; not: " + ", ".join(f"{n:,} {reason.label}" for reason, n in reasons)
    return line


def coverage_line(result: AuditResult) -> str | None:
    """The crawl against the sitemaps (--crawl); None without a crawl."""
    summary = result.summary
    crawl = summary.crawl
    if crawl is None:
        return None
    coverage = summary.coverage_json()
    line = (
        f"coverage: {crawl.read + crawl.unread:,} URLs crawled, "
        f"{coverage['crawled_and_listed']:,} of them listed, {coverage['crawled_only']:,} not; "
        f"{coverage['listed_only']:,} listed URLs not crawled"
    )
    if not crawl.complete:
        stops = [*crawl.bounds, *(["interrupted"] if crawl.interrupted else [])]
        stopped = ", ".join(stops) or "pages it could not read"
        line += f" (the crawl did not cover the site: {stopped}; no orphan named)"
    return line


def diff_lines(result: AuditResult) -> list[str]:
    """What changed since the baseline (--baseline), in two lines; none without one."""
    diff = result.diff
    if diff is None:
        return []
    new = diff["new_findings"]
    resolved = diff["resolved_findings"]
    assert isinstance(new, dict)
    assert isinstance(resolved, dict)
    regressions = int(str(diff["regressions"]))
    first = f"since the baseline: {_count(regressions, 'regression')}"
    if new:
        first += "; new: " + ", ".join(f"{code} +{n}" for code, n in _top(new))
    if resolved:
        first += "; fixed: " + ", ".join(f"{code} -{n}" for code, n in _top(resolved))
    second = (
        f"  URLs +{diff['urls_added']} -{diff['urls_removed']}, {diff['urls_changed']} changed "
        f"({diff.get('became_not_indexable', 0)} became not indexable)"
    )
    examples = diff.get("regression_examples") or []
    assert isinstance(examples, list)
    if examples:
        item = examples[0]
        second += f"; first regression: {_short(str(item['subject']))}"
    return [first, second]


def _top(counts: dict[str, object]) -> list[tuple[str, object]]:
    return sorted(counts.items(), key=lambda pair: (-int(str(pair[1])), pair[0]))[:5]


def plain_lines(result: AuditResult, *, no_check: bool) -> list[str]:
    """The summary as plain text, for a pipe or a log file."""
    counts = result.summary.by_severity()
    lines = [
        headline(result, no_check=no_check),
        "findings: " + ", ".join(f"{n} {severity.value}s" for severity, n in counts.items()),
    ]
    if (extensions := extensions_line(result)) is not None:
        lines.insert(1, extensions)
    for code, n, example in top_codes(result):
        lines.append(f"  {code.severity.value:<8} {code.value:<28} {n:>8}  {example}".rstrip())
    if (more := _more_codes(result)) > 0:
        lines.append(f"  ... and {more} more codes in the reports")
    if (indexable := indexability_line(result)) is not None:
        lines.insert(2 if extensions_line(result) else 1, indexable)
    if (coverage := coverage_line(result)) is not None:
        lines.insert(1, coverage)
    lines += diff_lines(result)
    lines.append(f"report: {result.json_path}")
    lines.append(f"report: {result.html_path}")
    lines.append(result.verdict.line)
    return lines


def rich_summary(result: AuditResult, *, no_check: bool) -> RenderableType:
    """The summary for a terminal: counts, a table of the top codes, paths, the verdict."""
    counts = result.summary.by_severity()
    findings = Text("findings: ")
    for index, (severity, n) in enumerate(counts.items()):
        findings.append(f"{n} {severity.value}s", style=_STYLES[severity] if n else "dim")
        findings.append(", " if index < len(counts) - 1 else "")
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("severity")
    table.add_column("code")
    table.add_column("count", justify="right")
    table.add_column("example")
    for code, n, example in top_codes(result):
        severity = code.severity
        # Text, not str: a str cell is read as rich markup, and a URL may hold "[...]".
        table.add_row(
            Text(severity.value, style=_STYLES[severity]), code.value, f"{n:,}", Text(example)
        )
    parts: list[RenderableType] = [Text(headline(result, no_check=no_check))]
    if (extensions := extensions_line(result)) is not None:
        parts.append(Text(extensions))
    if (indexable := indexability_line(result)) is not None:
        parts.append(Text(indexable))
    if (coverage := coverage_line(result)) is not None:
        parts.append(Text(coverage))
    parts.append(findings)
    if table.row_count:
        parts.append(table)
    if (more := _more_codes(result)) > 0:
        parts.append(Text(f"... and {more} more codes in the reports", style="dim"))
    parts += [Text(line) for line in diff_lines(result)]
    parts.append(Text(f"JSON report: {result.json_path}"))
    parts.append(Text(f"HTML report: {result.html_path}"))
    verdict = result.verdict
    parts.append(Text(verdict.line, style=_VERDICT_STYLES[verdict.outcome]))
    return Group(*parts)
