"""`--markdown PATH`: the run in Markdown, for a CI job summary, a pull request or a chat.

The verdict and the gate that decided it, the counts, what changed since the baseline, every
URL that fails the run grouped by sitemap (auditor.report.markdown_failing), the codes to fix
first with what each means and how to fix it, and where the full reports are. It fits a GitHub
job summary (at most 1 MiB of one step): the lists are capped, and the text says what was left
out. Every string from the network is inert (auditor.report.markdown_text). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from auditor.codes import Code, Severity
from auditor.config import FailOn
from auditor.models import Indexability
from auditor.report.failing import FailingUrls
from auditor.report.markdown_failing import failing_part
from auditor.report.markdown_text import code, text
from auditor.report.places import shown_place
from auditor.report.section import Section
from auditor.results.summary import Summary
from auditor.results.verdict import Decision, Outcome

MAX_CODES = 25  # codes in the "fix these first" table; the others are counted
MAX_LINES = 25  # regressions and changed URLs listed; the others are counted
# GitHub shows at most 1 MiB of one step's job summary (docs.github.com, "Workflow commands for
# GitHub Actions": step isolation and limits); a little is left for what else the step writes.
MAX_BYTES = 1_000_000
_MARK = {
    Outcome.PASS: "✅",
    Outcome.FAIL: "❌",
    Outcome.INCOMPLETE: "⚠️",
    Outcome.FAILED: "⚠️",
    Outcome.UNREACHABLE: "⛔",
}


@dataclass(frozen=True, slots=True)
class Where:
    """The run's other outputs, named in the summary's last lines."""

    title: str  # the first target, as reports are titled by it (Target.title)
    json: str  # the JSON report's path as shown: relative to `workspace` when under it
    html: str
    reports_url: str | None = None  # where the reports can be read (--reports-url)
    workspace: Path | None = None  # local files are named relative to it (the current folder)


@dataclass(frozen=True, slots=True)
class Gates:
    """The run's gates, as the list of what fails it names them."""

    sentence: str  # auditor.results.gates.gate_sentence
    fail_on: FailOn
    fail_on_new: FailOn | None  # None: no baseline


def markdown_summary(
    summary: Summary,
    decision: Decision,
    *,
    where: Where,
    examples: Mapping[Code, str],
    sections: Sequence[Section] = (),
    new: Iterable[Code] = (),
    failing: FailingUrls | None = None,
    gates: Gates | None = None,
) -> str:
    """The whole summary; `examples`: one URL per code (the HTML's first).

    `sections`: the wings' (their parts follow the counts); `new`: the codes they call new;
    `failing`: what fails the run (its list); `gates`: what the run fails on.
    """
    verdict = decision.verdict
    head = [
        f"## {_MARK[verdict.outcome]} Sitemap audit of {text(where.title)}",
        f"**{verdict.outcome.value}**: {text(verdict.text, limit=2_000)}",
        text(gates.sentence, limit=2_000) if gates is not None else "",
        _counts(summary),
    ]
    head += [part for section in sections if (part := section.markdown()) is not None]
    tail = [_codes(summary, examples, new=new, workspace=where.workspace)]
    tail.append(_reports(where))
    if failing is not None and gates is not None:
        used = sum(len(part.encode()) + 2 for part in (*head, *tail))
        listed = failing_part(
            failing,
            fail_on=gates.fail_on,
            fail_on_new=gates.fail_on_new,
            budget_bytes=MAX_BYTES - used,
            workspace=where.workspace,
        )
        head.append(listed)
    return "\n\n".join(part for part in (*head, *tail) if part) + "\n"


def _reports(where: Where) -> str:
    """Where the reports are: a link to them (a CI run's artifacts), or their paths."""
    if where.reports_url is not None and where.reports_url.startswith(("https://", "http://")):
        named = f"{code(Path(where.html).name)} (HTML), {code(Path(where.json).name)} (JSON)"
        return f"Full reports: {named}, in [the run's artifacts](<{_link(where.reports_url)}>)."
    return f"Full reports: {code(where.html)} (HTML), {code(where.json)} (JSON)."


def _link(url: str) -> str:
    """A link destination in angle brackets: no space, `<` or `>` may stay raw (CommonMark §6.3)."""
    return "".join(c if c.isprintable() and c not in " <>" else f"%{ord(c):02X}" for c in url)


def _counts(summary: Summary) -> str:
    counts = summary.by_severity()
    verdicts = summary.indexability
    judged = verdicts[Indexability.INDEXABLE] + verdicts[Indexability.NOT_INDEXABLE]
    cells = [_n(counts[s], s.value) for s in Severity]
    cells += [_n(summary.sitemaps, "document"), _n(summary.urls, "URL")]
    if judged:
        cells.append(f"{verdicts[Indexability.INDEXABLE]:,} of {judged:,} checked indexable")
    return "| " + " | ".join(cells) + " |\n|" + "---|" * len(cells)


def _codes(
    summary: Summary, examples: Mapping[Code, str], *, new: Iterable[Code], workspace: Path | None
) -> str:
    ranked = sorted(
        ((code, n) for code, n in summary.by_code.items() if n),
        key=lambda pair: (-pair[0].severity.rank, -pair[1], pair[0].value),
    )
    if not ranked:
        return "No finding."
    fresh = set(new)
    rows = [
        "### Fix these first",
        "| severity | code | count | what it means | example | how to fix |",
        "|---|---|---:|---|---|---|",
    ]
    for item, n in ranked[:MAX_CODES]:
        info = item.info
        mark = " **new**" if item in fresh else ""
        shown = examples.get(item)
        example = code(shown_place(shown, workspace=workspace), cell=True) if shown else ""
        rows.append(
            f"| {info.severity.value} | {code(item.value)}{mark} | {n:,} | {text(info.title)} | "
            f"{example} | {text(info.fix)} |"
        )
    if len(ranked) > MAX_CODES:
        rows.append(f"\n… and {len(ranked) - MAX_CODES} more codes, every one in the HTML report.")
    return "\n".join(rows)


def _n(count: int, noun: str) -> str:
    """`1 notice`, `2 notices`."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
