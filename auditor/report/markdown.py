"""`--markdown PATH`: the run in Markdown, for a CI job summary, a pull request or a chat.

The verdict, the counts, what changed since the baseline, the codes to fix first with what
each means and how to fix it, and where the full reports are. Short enough for a job summary
(GitHub shows at most 1 MiB of one): the lists are capped, and the text says what was left out.
Every string from the network is escaped: it can neither close a table cell nor become a link,
an image or HTML. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from auditor.codes import Code, Severity
from auditor.models import Indexability
from auditor.report.section import Section
from auditor.results.summary import Summary
from auditor.results.verdict import Decision, Outcome

MAX_CODES = 25  # codes in the "fix these first" table; the others are counted
MAX_LINES = 25  # regressions and changed URLs listed; the others are counted
MAX_CHARS = 200  # a URL or a message shown whole up to here
_MARK = {
    Outcome.PASS: "✅",
    Outcome.FAIL: "❌",
    Outcome.INCOMPLETE: "⚠️",
    Outcome.FAILED: "⚠️",
    Outcome.UNREACHABLE: "⛔",
}
# What Markdown (GitHub's, CommonMark) could read as markup in a cell of text from the network.
_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-!|~])")


@dataclass(frozen=True, slots=True)
class Where:
    """The run's other outputs, named in the summary's last lines."""

    title: str  # the first target, as the report names it
    json: str
    html: str


def markdown_summary(
    summary: Summary,
    decision: Decision,
    *,
    where: Where,
    examples: Mapping[Code, str],
    sections: Sequence[Section] = (),
    new: Iterable[Code] = (),
) -> str:
    """The whole summary; `examples`: one URL per code (the HTML's first).

    `sections`: the wings' (their parts follow the counts); `new`: the codes they call new.
    """
    verdict = decision.verdict
    parts = [
        f"## {_MARK[verdict.outcome]} Sitemap audit of {text(where.title)}",
        f"**{verdict.outcome.value}**: {text(verdict.text)}",
        _counts(summary),
    ]
    parts += [part for section in sections if (part := section.markdown()) is not None]
    parts.append(_codes(summary, examples, new=new))
    parts.append(f"Full reports: {text(where.html)} (HTML), {text(where.json)} (JSON).")
    return "\n\n".join(part for part in parts if part) + "\n"


def text(value: object) -> str:
    """A string from the network as inert Markdown: one line, escaped, cut to MAX_CHARS."""
    shown = "".join(c if c.isprintable() else " " for c in str(value))
    if len(shown) > MAX_CHARS:
        shown = shown[: MAX_CHARS - 1] + "…"
    return _SPECIAL.sub(r"\\\1", shown)


def _counts(summary: Summary) -> str:
    counts = summary.by_severity()
    verdicts = summary.indexability
    judged = verdicts[Indexability.INDEXABLE] + verdicts[Indexability.NOT_INDEXABLE]
    cells = [f"{counts[s]:,} {s.value}s" for s in Severity]
    cells += [f"{summary.sitemaps:,} documents", f"{summary.urls:,} URLs"]
    if judged:
        cells.append(f"{verdicts[Indexability.INDEXABLE]:,} of {judged:,} checked indexable")
    return "| " + " | ".join(cells) + " |\n|" + "---|" * len(cells)


def _codes(summary: Summary, examples: Mapping[Code, str], *, new: Iterable[Code]) -> str:
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
    for code, n in ranked[:MAX_CODES]:
        info = code.info
        mark = " **new**" if code in fresh else ""
        example = text(examples.get(code, ""))
        rows.append(
            f"| {info.severity.value} | `{code.value}`{mark} | {n:,} | {text(info.title)} | "
            f"{example} | {text(info.fix)} |"
        )
    if len(ranked) > MAX_CODES:
        rows.append(f"\n… and {len(ranked) - MAX_CODES} more codes, every one in the HTML report.")
    return "\n".join(rows)
