"""The end-of-run summary for the terminal: a rich table on a TTY, plain lines otherwise.

Builds what to show; the CLI prints it. The verdict line is the HTML report's
(auditor.results.verdict).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from auditor._version import __version__
from auditor.codes import Code, Severity
from auditor.flow.audit import AuditResult
from auditor.models import Indexability, SitemapKind
from auditor.report.section import printable
from auditor.results.samples import Example
from auditor.results.verdict import Outcome

PROG = "sitemap-audit"
EXAMPLE_CHARS = 70  # an example URL is cut here in the terminal; the reports have it whole
_ANSWERED = frozenset({"http", "redirect", "url"})  # codes whose example's answer is the cause
_INDENT = " " * 12  # an example's and a fix's lines: under the code
SCREEN_LINES = 50  # the screen a summary is fitted to when it is no terminal's (a log)
SUMMARY_LINES = 12  # the summary's lines beside its codes: counts, changes, paths, verdict
LINES_PER_CODE = 3  # a code's line, its example, its fix
MIN_CODES = 5  # shown however small the screen
_STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTICE: "cyan"}
_VERDICT_STYLES = {
    Outcome.PASS: "bold green",
    Outcome.FAIL: "bold red",
    Outcome.INCOMPLETE: "bold yellow",
    Outcome.FAILED: "bold yellow",
    Outcome.UNREACHABLE: "bold red",
}


def headline(result: AuditResult, *, no_check: bool) -> str:
    """What was read and requested, and how long it took."""
    summary = result.summary
    mode = "sitemaps only (--no-check)"
    if not no_check:
        classes = " ".join(f"{key} {n:,}" for key, n in sorted(summary.by_status_class.items()))
        checked = f"{summary.checked:,} requested"
        if summary.alternates:  # unlisted hreflang alternates are requested too
            checked += f" ({_count(summary.alternates, 'alternate')} included)"
        mode = f"{checked}: {classes or 'none'}"
    robots = summary.sitemaps_by_kind[SitemapKind.ROBOTS.value]
    documents = _count(summary.sitemaps - robots, "sitemap")
    if robots:
        documents += f" and {robots:,} robots.txt"
    return (
        f"{PROG} {__version__}: {documents}, {_count(summary.urls, 'distinct URL')} "
        f"({_count(summary.entries, 'entry', 'entries')}), {mode}, {result.duration_s:.1f} s"
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


def _count(n: int, word: str, plural: str | None = None) -> str:
    """`1 sitemap`, `3,000 sitemaps`: the number with thousands separators, the noun agreeing."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {plural or word + 's'}"


@dataclass(frozen=True, slots=True)
class Shown:
    """Where the summary says the reports are: paths, or `stdout`; None: not written."""

    json: str
    html: str | None


def shown_of(result: AuditResult, shown: Shown | None) -> Shown:
    return shown or Shown(str(result.json_path), str(result.html_path))


@dataclass(frozen=True, slots=True)
class CodeLine:
    """One code of the run as the terminal shows it: what it means, an example, the fix."""

    code: Code
    count: int
    example: str  # a URL, cut to one line; "" when no example was kept
    cause: str  # what the example answered: `404`, or the network's reason
    title: str
    fix: str


def code_lines(result: AuditResult) -> list[CodeLine]:
    """Every code of the run, errors first, then by count, each with one example and its fix."""
    ranked = sorted(
        ((code, n) for code, n in result.summary.by_code.items() if n),
        key=lambda pair: (-pair[0].severity.rank, -pair[1], pair[0].value),
    )
    lines = []
    for code, n in ranked:
        examples = result.samples.examples.get(code) or []
        example = examples[0] if examples else None  # the first by URL: the same every run
        url = _short(example.url.value) if example is not None and example.url else ""
        cause = _cause(example) if example is not None else ""
        lines.append(CodeLine(code, n, url, cause, code.info.title, code.info.fix))
    return lines


def _cause(example: Example) -> str:
    """What the example says: `404` or `301 -> 200`, a network's reason, or a detail.

    The answer for what a request finds, the reason for `net.*`, else the example's first
    detail (`value: yesterday`).
    """
    family = example.code.value.partition(".")[0]
    if family in _ANSWERED and example.status is not None:
        final = example.final_status
        return f"{example.status} -> {final}" if final is not None else str(example.status)
    message = _short(example.message.value, EXAMPLE_CHARS)
    if family == "net" or not example.detail:
        return "" if message == example.code.info.title else message
    key, value = example.detail[0]
    return _short(f"{key}: {value.value}", EXAMPLE_CHARS)


def fitting(lines: list[CodeLine], *, height: int) -> int:
    """How many code lines fit a screen of `height` rows beside the summary's other lines."""
    room = (height - SUMMARY_LINES) // LINES_PER_CODE
    return len(lines) if room >= len(lines) else max(MIN_CODES, room)


def _short(text: str, limit: int = EXAMPLE_CHARS) -> str:
    text = printable(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _rest(lines: list[CodeLine], count: int, shown: Shown) -> str | None:
    """How many codes are left out, and where every one is."""
    left = lines[count:]
    if not left:
        return None
    by = Counter(line.code.severity for line in left)
    counts = ", ".join(_count(by[s], s.value) for s in Severity if by[s])
    where = shown.html if shown.html is not None else "the JSON report"
    return f"... and {len(left)} more codes ({counts}): every one in {where}"


def _report_lines(shown: Shown) -> list[str]:
    lines = [f"JSON report: {shown.json}"]
    return lines + ([f"HTML report: {shown.html}"] if shown.html is not None else [])


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


def plain_lines(
    result: AuditResult,
    *,
    no_check: bool,
    height: int = SCREEN_LINES,
    shown: Shown | None = None,
) -> list[str]:
    """The summary as plain text, for a pipe or a log file; codes fitted to `height` rows."""
    outputs = shown_of(result, shown)
    counts = result.summary.by_severity()
    lines = [
        headline(result, no_check=no_check),
        "findings: " + ", ".join(_count(n, severity.value) for severity, n in counts.items()),
    ]
    if (extensions := extensions_line(result)) is not None:
        lines.insert(1, extensions)
    if (indexable := indexability_line(result)) is not None:
        lines.insert(2 if extensions_line(result) else 1, indexable)
    lines[1:1] = [line for section in result.sections for line in section.lines().head]
    codes = code_lines(result)
    count = fitting(codes, height=height)
    for line in codes[:count]:
        code, number = line.code, f"{line.count:,}"
        lines.append(f"  {code.severity.value:<8}  {code.value:<28} {number:>7}  {line.title}")
        if line.example:
            cause = f" ({line.cause})" if line.cause else ""
            lines.append(f"{_INDENT}e.g. {line.example}{cause}")
        lines.append(f"{_INDENT}fix: {line.fix}")
    if (rest := _rest(codes, count, outputs)) is not None:
        lines.append(rest)
    lines += [line for section in result.sections for line in section.lines().tail]
    lines += _report_lines(outputs)
    lines.append(result.verdict.line)
    return lines


def rich_summary(
    result: AuditResult,
    *,
    no_check: bool,
    height: int = SCREEN_LINES,
    shown: Shown | None = None,
) -> RenderableType:
    """The summary for a terminal: counts, a table of the codes, paths, the verdict."""
    outputs = shown_of(result, shown)
    counts = result.summary.by_severity()
    findings = Text("findings: ")
    for index, (severity, n) in enumerate(counts.items()):
        findings.append(_count(n, severity.value), style=_STYLES[severity] if n else "dim")
        findings.append(", " if index < len(counts) - 1 else "")
    codes = code_lines(result)
    count = fitting(codes, height=height)
    parts: list[RenderableType] = [Text(headline(result, no_check=no_check))]
    if (extensions := extensions_line(result)) is not None:
        parts.append(Text(extensions))
    if (indexable := indexability_line(result)) is not None:
        parts.append(Text(indexable))
    parts += [Text(line) for section in result.sections for line in section.lines().head]
    parts.append(findings)
    if codes:
        parts.append(_table(codes[:count]))
    if (rest := _rest(codes, count, outputs)) is not None:
        parts.append(Text(rest, style="dim"))
    parts += [Text(line) for section in result.sections for line in section.lines().tail]
    parts += [Text(line) for line in _report_lines(outputs)]
    verdict = result.verdict
    parts.append(Text(verdict.line, style=_VERDICT_STYLES[verdict.outcome]))
    return Group(*parts)


def _table(lines: list[CodeLine]) -> Table:
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    table.add_column("severity")
    table.add_column("code")
    table.add_column("count", justify="right")
    table.add_column("what it means, an example, the fix", ratio=1)
    for line in lines:
        severity = line.code.severity
        # Text, not str: a str cell is read as rich markup, and a URL may hold "[...]".
        said = Text(line.title)
        if line.example:
            said.append("\ne.g. " + line.example, style="dim")
            said.append(f" ({line.cause})" if line.cause else "", style="dim")
        said.append("\nfix: " + line.fix, style="green")
        table.add_row(
            Text(severity.value, style=_STYLES[severity]), line.code.value, f"{line.count:,}", said
        )
    return table
