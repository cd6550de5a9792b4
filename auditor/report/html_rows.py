"""The HTML report's rows: links, code rows, example lines, sitemap and target lines.

Every string from the network stays a plain string here (the template escapes it); only http(s)
URLs become links. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditor.codes import Code, Severity
from auditor.models import Indexability, NotIndexable, TargetRecord
from auditor.results.samples import Example, Samples, SitemapRow, Text, clip
from auditor.results.summary import Summary

CODES_PER_ROW = 5  # code chips in a sitemap row; the rest are counted
MAX_LIST_ITEMS = 50  # sitemaps found by a target, lines of a diff list


@dataclass(frozen=True, slots=True)
class Link:
    """A URL as shown: its text (cut, saying how much), and an href only when it is safe."""

    text: str
    href: str | None
    cut: int  # characters not shown


def link(value: str | Text, *, beside: str | None = None) -> Link:
    """A URL for the page: an href only for an uncut http(s) URL without spaces or controls.

    `javascript:`, `data:` and every other scheme stay text: a report never runs what a
    sitemap says. A URL on the same origin as `beside` is shown as its path.
    """
    text = value if isinstance(value, Text) else clip(value)
    href = text.value if not text.cut and _is_web_url(text.value) else None
    shown = text.value
    if beside is not None and href is not None:
        origin = _origin(beside)
        if origin and shown.startswith(origin + "/"):
            shown = shown[len(origin) :]
    return Link(shown, href, text.cut)


def _origin(url: str) -> str:
    """`https://host:port` of an http(s) URL; "" for anything else."""
    scheme, _, rest = url.partition("://")
    if scheme.lower() not in {"http", "https"}:
        return ""
    return f"{scheme}://{rest.split('/', 1)[0]}"


def _is_web_url(url: str) -> bool:
    head = url[:8].lower()
    if not head.startswith(("http://", "https://")):
        return False
    return not any(char.isspace() or ord(char) < 0x20 or char == "\x7f" for char in url)


@dataclass(frozen=True, slots=True)
class CodeRow:
    """One code of the run: what it means, how many, how to fix it."""

    code: str
    severity: Severity
    title: str
    search_console: str | None
    fix: str
    count: int
    anchor: str
    new: int = 0  # findings of it new since the baseline


def code_row(code: Code, count: int, *, new: int = 0) -> CodeRow:
    """The catalog's words for `code`, with its count in this run (and the new ones)."""
    info = code.info
    anchor = "code-" + code.value.replace(".", "-")
    return CodeRow(
        code.value, info.severity, info.title, info.search_console, info.fix, count, anchor, new
    )


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a drawn redirect chain: a URL, then the status it answered."""

    url: Link
    status: int | None


@dataclass(frozen=True, slots=True)
class ExampleLine:
    """One example of a code: the URL (or its redirect chain), its sitemap, what was found."""

    url: Link | None
    chain: tuple[Step, ...]  # `a -> 301 -> b -> 200`; empty without redirects
    hops_left_out: int
    status: int | None
    sitemap: Link | None
    message: str
    detail: str
    indexability: str | None  # its URL's: indexable, not_indexable, not_checked
    indexability_label: str  # as shown: "indexable", "noindex_meta", "not_checked"


@dataclass(frozen=True, slots=True)
class CodeGroup:
    """The problem URLs of one code: the first examples found, with the cap stated."""

    row: CodeRow
    examples: tuple[ExampleLine, ...]
    total: int
    cap: int


@dataclass(frozen=True, slots=True)
class SitemapLine:
    """One row of the sitemap table."""

    url: Link
    kind: str
    depth: int
    parent: Link | None
    status: int | None
    url_count: int
    checked: int | None
    indexable: int | None  # of the checked URLs it lists
    failing: int  # listed URLs with an error
    errors: int
    warnings: int
    notices: int
    codes: tuple[CodeRow, ...]  # the worst few
    more_codes: int
    broken: bool


@dataclass(frozen=True, slots=True)
class TargetLine:
    """What one target was, and what discovery found for it."""

    input: str
    url: Link
    robots: Link | None
    sitemaps: tuple[Link, ...]
    more_sitemaps: int


def by_worst(summary: Summary) -> list[tuple[Code, int]]:
    """Codes of the run: errors first, then by count."""
    return sorted(
        ((code, n) for code, n in summary.by_code.items() if n),
        key=lambda pair: (-pair[0].severity.rank, -pair[1], pair[0].value),
    )


def sitemap_line(row: SitemapRow, summary: Summary, samples: Samples) -> SitemapLine:
    checks = summary.by_sitemap.get(row.url)
    failing = max(samples.url_errors[row.url], checks.failing if checks else 0)
    counts = row.by_severity
    return SitemapLine(
        url=link(row.url),
        kind=_kind(row),
        depth=row.depth,
        parent=link(row.parent, beside=row.url) if row.parent is not None else None,
        status=row.status,
        url_count=row.url_count,
        checked=checks.checked if checks else None,
        indexable=checks.indexable if checks else None,
        failing=failing,
        errors=counts[Severity.ERROR],
        warnings=counts[Severity.WARNING],
        notices=counts[Severity.NOTICE],
        codes=tuple(code_row(code, 0) for code in row.codes[:CODES_PER_ROW]),
        more_codes=max(0, len(row.codes) - CODES_PER_ROW),
        broken=bool(row.errors or failing),
    )


def _kind(row: SitemapRow) -> str:
    if row.kind is not None:
        return row.kind.value
    answered = row.status is not None and 200 <= row.status < 300
    return "not a sitemap" if answered else "unread"


def code_groups(summary: Summary, samples: Samples) -> tuple[CodeGroup, ...]:
    cap = samples.examples_per_code
    return tuple(
        CodeGroup(
            code_row(code, n),
            tuple(example_line(example) for example in samples.examples.get(code, ())),
            total=n,
            cap=cap,
        )
        for code, n in by_worst(summary)
    )


def example_line(example: Example) -> ExampleLine:
    chain: tuple[Step, ...] = ()
    if example.hops:
        chain = tuple(Step(link(hop.url), hop.status) for hop in example.hops)
        if example.final_url is not None:
            chain += (Step(link(example.final_url), example.final_status),)
    detail = ", ".join(
        f"{key}: {_detail_value(value)}" for key, value in example.detail if value.value != "None"
    )
    return ExampleLine(
        url=link(example.url) if example.url is not None else None,
        chain=chain,
        hops_left_out=example.hops_left_out,
        status=example.status,
        sitemap=link(example.sitemap) if example.sitemap is not None else None,
        message=example.message.value + ("…" if example.message.cut else ""),
        detail=detail,
        indexability=example.indexability.value if example.indexability else None,
        indexability_label=indexability_label(example.indexability, example.not_indexable),
    )


def indexability_label(verdict: Indexability | None, reason: NotIndexable | None) -> str:
    """How the report says a URL's indexability: `indexable`, `noindex_meta`, `not_checked`.

    The values of the report's JSON: one spelling everywhere (NotIndexable.label).
    """
    if verdict is None:
        return ""
    if reason is not None:
        return reason.label
    return verdict.value


def _detail_value(value: Text) -> str:
    """A detail as JSON would say it (true, not True), marked when it was cut."""
    text = {"True": "true", "False": "false"}.get(value.value, value.value)
    return text + ("…" if value.cut else "")


def target_line(target: TargetRecord) -> TargetLine:
    return TargetLine(
        input=clip(target.input).value,
        url=link(target.url),
        robots=link(target.robots) if target.robots else None,
        sitemaps=tuple(link(url) for url in target.sitemaps[:MAX_LIST_ITEMS]),
        more_sitemaps=max(0, len(target.sitemaps) - MAX_LIST_ITEMS),
    )
