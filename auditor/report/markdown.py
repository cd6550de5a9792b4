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
from auditor.results.summary import Summary
from auditor.results.verdict import Decision, Outcome

MAX_CODES = 25  # codes in the "fix these first" table; the others are counted
MAX_LINES = 25  # regressions and changed URLs listed; the others are counted
MAX_CHARS = 200  # a URL or a message shown whole up to here
_MARK = {Outcome.PASS: "✅", Outcome.FAIL: "❌", Outcome.INCOMPLETE: "⚠️", Outcome.FAILED: "⚠️"}
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
    diff: Mapping[str, object] | None = None,
) -> str:
    """The whole summary; `examples`: one URL per code (the HTML's first)."""
    verdict = decision.verdict
    parts = [
        f"## {_MARK[verdict.outcome]} Sitemap audit of {text(where.title)}",
        f"**{verdict.outcome.value}**: {text(verdict.text)}",
        _counts(summary),
    ]
    if diff is not None:
        parts.append(_changes(diff))
    parts += ["\n".join(section.markdown_lines()) for section in summary.sections]
    parts.append(_codes(summary, examples, new=_new_codes(diff)))
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


def _changes(diff: Mapping[str, object]) -> str:
    regressions = int(str(diff.get("regressions", 0)))
    lines = [f"### Since the baseline: {regressions:,} regression{'' if regressions == 1 else 's'}"]
    examples = _list(diff, "regression_examples")
    for item in examples[:MAX_LINES]:
        assert isinstance(item, dict)
        codes = ", ".join(f"`{code}`" for code in item.get("codes") or ())
        lost = item.get("became_not_indexable")
        why = codes + (f" (not indexable: {text(lost)})" if lost else "")
        lines.append(f"- {text(item['subject'])}: {why or 'not indexable'}")
    left = regressions - min(len(examples), MAX_LINES)
    if left > 0:
        lines.append(f"- … and {left:,} more (all in the JSON report and the JUnit file)")
    new, fixed = _counted(diff, "new_findings"), _counted(diff, "resolved_findings")
    lines.append("")
    lines.append(f"New findings: {new or 'none'}. Fixed: {fixed or 'none'}.")
    lines.append(
        f"URLs added {diff.get('urls_added', 0):,}, removed {diff.get('urls_removed', 0):,}, "
        f"changed {diff.get('urls_changed', 0):,}."
    )
    return "\n".join(lines)


def _counted(diff: Mapping[str, object], key: str) -> str:
    counts = diff.get(key) or {}
    assert isinstance(counts, dict)
    ranked = sorted(counts.items(), key=lambda pair: (-int(pair[1]), pair[0]))
    shown = ", ".join(f"`{code}` {int(n):,}" for code, n in ranked[:MAX_LINES])
    return shown + (f", … {len(ranked) - MAX_LINES} more codes" if len(ranked) > MAX_LINES else "")


def _codes(summary: Summary, examples: Mapping[Code, str], *, new: Iterable[str]) -> str:
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
        mark = " **new**" if code.value in fresh else ""
        example = text(examples.get(code, ""))
        rows.append(
            f"| {info.severity.value} | `{code.value}`{mark} | {n:,} | {text(info.title)} | "
            f"{example} | {text(info.fix)} |"
        )
    if len(ranked) > MAX_CODES:
        rows.append(f"\n… and {len(ranked) - MAX_CODES} more codes, every one in the HTML report.")
    return "\n".join(rows)


def _new_codes(diff: Mapping[str, object] | None) -> Sequence[str]:
    if diff is None:
        return ()
    counts = diff.get("new_findings") or {}
    assert isinstance(counts, dict)
    return list(counts)


def _list(diff: Mapping[str, object], key: str) -> list[object]:
    items = diff.get(key) or []
    assert isinstance(items, list)
    return items
