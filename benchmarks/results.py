"""The suite's results: runs added up into medians, min-max and same-round ratios; the table,
the targets the suite holds a run to, and the plots. Pure but for plot() (matplotlib, writes PNG
files).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import assert_never


@dataclass(slots=True)
class Run:
    """One row of one task in one round, measured and judged."""

    task: str
    urls: int  # the tree's size
    row: str
    round: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    max_rss_mb: float
    processes: int
    server_cpu_s: float
    other_cpu_s: float
    exit_code: int
    counted: int = -1  # the URLs the row says it handled
    problems: list[str] = field(default_factory=list)
    details: dict[str, object] = field(default_factory=dict)
    server_requests: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def urls_per_s(self) -> float:
        return self.urls / self.wall_s if self.ok and self.wall_s > 0 else 0.0

    @property
    def cpu_us_per_url(self) -> float:
        """User + sys of the client's whole process tree over the tree's URLs, in µs."""
        return self.cpu_s / self.urls * 1e6 if self.ok and self.urls else 0.0


def spread(values: Sequence[float], fmt: str) -> str:
    """`median (min-max)`, or the one value, or "-". Pure."""
    if not values:
        return "-"
    median = format(statistics.median(values), fmt)
    if len(values) == 1:
        return median
    return f"{median} ({format(min(values), fmt)}-{format(max(values), fmt)})"


def stats(values: Sequence[float]) -> dict[str, float] | None:
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def ratios(
    runs: Sequence[Run], task: str, row: str, reference: str, attribute: str = "urls_per_s"
) -> list[float]:
    """Per round: this row's `attribute` (URLs/s) over the reference's in the same task, both
    right. Pure."""
    found = []
    for number in sorted({run.round for run in runs if run.task == task}):
        mine = [r for r in runs if (r.task, r.row, r.round) == (task, row, number) and r.ok]
        ref = [r for r in runs if (r.task, r.row, r.round) == (task, reference, number) and r.ok]
        if mine and ref and getattr(ref[0], attribute):
            found.append(getattr(mine[0], attribute) / getattr(ref[0], attribute))
    return found


# Columns of the table and of the JSON summary: name, attribute of a run, format.
COLUMNS = (
    ("wall s", "wall_s", ".2f"),
    ("URLs/s", "urls_per_s", ",.0f"),
    ("peak RSS MB", "peak_rss_mb", ".0f"),
    ("CPU s", "cpu_s", ".1f"),
    ("CPU µs/URL", "cpu_us_per_url", ",.0f"),
    ("server CPU s", "server_cpu_s", ".1f"),
    ("other CPU s", "other_cpu_s", ".1f"),
)


def values(runs: Sequence[Run], attribute: str) -> list[float]:
    return [float(getattr(run, attribute)) for run in runs if run.ok]


def cells_of(runs: Sequence[Run], task: str | None, row: str) -> list[Run]:
    return [run for run in runs if run.task == task and run.row == row]


def summarise(
    runs: Sequence[Run], order: Sequence[tuple[str, str, tuple[str, ...]]]
) -> list[dict[str, object]]:
    """One entry per (task, row, references) of `order` that ran. Pure."""
    found = []
    for task, row, references in order:
        mine = cells_of(runs, task, row)
        if not mine:
            continue
        entry: dict[str, object] = {
            "task": task,
            "row": row,
            "urls": mine[0].urls,
            "runs": len(mine),
            "ok": sum(run.ok for run in mine),
        }
        entry |= {attribute: stats(values(mine, attribute)) for _, attribute, _ in COLUMNS}
        entry["vs"] = {
            reference: {
                "per_round": (per_round := ratios(runs, task, row, reference)),
                "stats": stats(per_round),
                "cpu_per_url": stats(ratios(runs, task, row, reference, "cpu_us_per_url")),
            }
            for reference in references
        }
        found.append(entry)
    return found


def table(runs: Sequence[Run], order: Sequence[tuple[str, str, tuple[str, ...]]]) -> str:
    """The markdown table: medians (min-max) over the rounds; ratios per round to the refs."""
    names = [name for name, _, _ in COLUMNS]
    lines = [
        "| task | row | ok | " + " | ".join(names) + " | URLs/s vs (same round) "
        "| CPU/URL vs (same round) |",
        "|---|---|---|" + "---:|" * len(names) + "---|---|",
    ]
    for task, row, references in order:
        mine = cells_of(runs, task, row)
        if not mine:
            continue
        cells = [task, row, f"{sum(run.ok for run in mine)}/{len(mine)}"]
        cells += [spread(values(mine, attribute), fmt) for _, attribute, fmt in COLUMNS]
        for attribute in ("urls_per_s", "cpu_us_per_url"):
            versus = []
            for reference in references:
                per_round = ratios(runs, task, row, reference, attribute)
                if per_round:
                    versus.append(f"{spread(per_round, '.2f')}x {reference}")
            cells.append("; ".join(versus) or "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


class Bound(StrEnum):
    """How a target's value must compare with its limit."""

    AT_LEAST = ">="
    BELOW = "<"
    AT_MOST = "<="


@dataclass(frozen=True, slots=True)
class Target:
    """One target of the suite, and whether this run met it."""

    text: str
    value: float | None
    bound: Bound
    limit: float

    @property
    def status(self) -> str:
        if self.value is None:
            return "not measured"
        match self.bound:
            case Bound.AT_LEAST:
                met = self.value >= self.limit
            case Bound.BELOW:
                met = self.value < self.limit
            case Bound.AT_MOST:
                met = self.value <= self.limit
            case _:
                assert_never(self.bound)
        return "met" if met else "MISSED"


def _median(found: Sequence[float]) -> float | None:
    return statistics.median(found) if found else None


def targets(
    runs: Sequence[Run],
    *,
    parse_task: str,
    small_parse_task: str | None,
    check_tasks: Sequence[str],
    https_tasks: Sequence[str] = (),
    diff_task: str | None = None,
    nights_task: str | None = None,
    crawl_task: str | None = None,
    logs_tasks: Sequence[str] = (),
    cores: int,
) -> list[Target]:
    """The parse and check targets (for a 2-core machine), from the medians
    of this run. Pure."""

    def ratio(task: str, row: str, ref: str, attribute: str = "urls_per_s") -> float | None:
        return _median(ratios(runs, task, row, ref, attribute))

    def rss(task: str | None, row: str) -> float | None:
        return _median(values(cells_of(runs, task, row), "peak_rss_mb")) if task else None

    parse, wide = "auditor --no-check", f"auditor curl w{cores}"
    big, small = rss(parse_task, parse), rss(small_parse_task, parse)
    growth = big / small if big is not None and small else None
    found = [
        Target(
            f"{parse_task}: auditor / bare parse",
            ratio(parse_task, parse, "bare parse"),
            Bound.AT_LEAST,
            0.75,
        ),
        Target(
            f"{parse_task}: auditor / usp", ratio(parse_task, parse, "usp"), Bound.AT_LEAST, 1.6
        ),
        Target(f"{parse_task}: auditor peak RSS MB", big, Bound.BELOW, 120),
        Target(f"auditor peak RSS, {parse_task} / {small_parse_task}", growth, Bound.AT_MOST, 1.5),
    ]
    for task in check_tasks:
        cpu = ratio(task, wide, "lychee", "cpu_us_per_url")
        found += [
            # What the user pays for: the client's CPU (its whole process tree) per URL.
            Target(f"{task}: {wide} CPU per URL / lychee's", cpu, Bound.AT_MOST, 1.0),
            Target(f"{task}: {wide} CPU per URL / lychee's (stretch)", cpu, Bound.AT_MOST, 0.67),
            Target(f"{task}: {wide} / lychee", ratio(task, wide, "lychee"), Bound.AT_LEAST, 1.0),
            Target(
                f"{task}: auditor curl w1 / lychee",
                ratio(task, "auditor curl w1", "lychee"),
                Bound.AT_LEAST,
                1.0,
            ),
            Target(
                f"{task}: auditor curl w1 / bare curl",
                ratio(task, "auditor curl w1", "bare curl"),
                Bound.AT_LEAST,
                0.4,
            ),
        ]
    found.append(
        Target(
            f"{check_tasks[-1]}: {wide} peak RSS MB (all processes)",
            rss(check_tasks[-1], wide),
            Bound.BELOW,
            150,
        )
    )
    found += [
        Target(
            f"{task}: {wide} https / lychee https",
            ratio(task, f"{wide} https", "lychee https"),
            Bound.AT_LEAST,
            1.2,
        )
        for task in https_tasks
    ]
    if crawl_task is not None:
        # --crawl against Scrapy (same concurrency): pages/s, and half its memory at most.
        ours, scrapy = rss(crawl_task, "auditor --crawl"), rss(crawl_task, "scrapy")
        found += [
            Target(
                f"{crawl_task}: auditor --crawl / scrapy",
                ratio(crawl_task, "auditor --crawl", "scrapy"),
                Bound.AT_LEAST,
                1.5,
            ),
            Target(
                f"{crawl_task}: auditor --crawl peak RSS / scrapy's",
                ours / scrapy if ours is not None and scrapy else None,
                Bound.AT_MOST,
                0.5,
            ),
        ]
    if diff_task is not None:
        # --baseline at 1M URLs: two reports compared within the parse rows' memory target.
        found.append(
            Target(
                f"{diff_task}: auditor compare peak RSS MB",
                rss(diff_task, "auditor compare"),
                Bound.BELOW,
                120,
            )
        )
    if nights_task is not None:
        # A night of a 1M-URL site with a history and a budget, within the check rows' target.
        peaks = [
            float(str(run.details["night_peak_rss_mb_max"]))
            for run in cells_of(runs, nights_task, "auditor nights")
            if "night_peak_rss_mb_max" in run.details
        ]
        found.append(
            Target(
                f"{nights_task}: a night's peak RSS MB (all processes)",
                _median(peaks),
                Bound.BELOW,
                150,
            )
        )
    for task in logs_tasks:
        found += logs_targets(runs, task)
    return found


LOGS_ROW = "auditor --access-log"


def log_read_ratios(runs: Sequence[Run], task: str) -> list[float]:
    """Per round: the auditor's log lines per second of reading (its report's `read_s`) over the
    bare loop's lines per second (its whole child's wall time), both right. Pure."""
    found = []
    for number in sorted({run.round for run in runs if run.task == task}):
        mine = [r for r in cells_of(runs, task, LOGS_ROW) if r.round == number and r.ok]
        bare = [r for r in cells_of(runs, task, "bare log loop") if r.round == number and r.ok]
        if mine and bare and bare[0].urls_per_s:
            rate = float(str(mine[0].details.get("log_lines_per_s") or 0))
            found.append(rate / bare[0].urls_per_s)
    return found


def logs_targets(runs: Sequence[Run], task: str) -> list[Target]:
    """The logs task's: lines a second, against the bare loop; the whole run's peak RSS."""
    rates = [
        float(str(run.details["log_lines_per_s"]))
        for run in cells_of(runs, task, LOGS_ROW)
        if run.ok and "log_lines_per_s" in run.details
    ]
    return [
        Target(f"{task}: auditor log lines/s (reading)", _median(rates), Bound.AT_LEAST, 300_000),
        Target(
            f"{task}: auditor reading / bare log loop (lines/s)",
            _median(log_read_ratios(runs, task)),
            Bound.AT_LEAST,
            0.7,
        ),
        Target(
            f"{task}: auditor peak RSS MB (all processes)",
            _median(values(cells_of(runs, task, LOGS_ROW), "peak_rss_mb")),
            Bound.AT_MOST,
            150,
        ),
        Target(
            f"{task}: auditor --workers 1 peak RSS MB",
            _median(values(cells_of(runs, task, f"{LOGS_ROW} w1"), "peak_rss_mb")),
            Bound.AT_MOST,
            150,
        ),
    ]


def targets_table(found: Sequence[Target]) -> str:
    lines = ["| target | this run | limit | |", "|---|---:|---:|---|"]
    for target in found:
        shown = "-" if target.value is None else f"{target.value:.2f}"
        limit = f"{target.bound.value} {target.limit:g}"
        lines.append(f"| {target.text} | {shown} | {limit} | {target.status} |")
    return "\n".join(lines)


def plot(
    runs: Sequence[Run], *, tasks: Sequence[str], rows: Sequence[str], folder: Path, prefix: str
) -> list[Path]:
    """Throughput and peak RSS of the parse rows against the URL count (PNG files)."""
    import matplotlib as mpl  # noqa: PLC0415 - only when plotting

    mpl.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    written = []
    for attribute, label, name in (
        ("urls_per_s", "URLs/s (median)", "parse_throughput.png"),
        ("peak_rss_mb", "peak RSS, MB (median, whole process tree)", "parse_peak_rss.png"),
    ):
        figure, axes = plt.subplots(figsize=(7, 4.5))
        for row in rows:
            points = []
            for task in tasks:
                mine = cells_of(runs, task, row)
                found = values(mine, attribute)
                if found:
                    points.append((mine[0].urls, statistics.median(found)))
            if points:
                points.sort()
                xs, ys = zip(*points, strict=True)
                axes.plot(xs, ys, marker="o", label=row)
        axes.set_xscale("log")
        axes.set_xlabel("URLs in the tree")
        axes.set_ylabel(label)
        axes.set_title(f"Parse (+ validate for the auditor): {label.split(',')[0].split(' (')[0]}")
        axes.grid(visible=True, which="both", alpha=0.3)
        if points_drawn := axes.get_lines():
            axes.legend(handles=points_drawn)
        figure.tight_layout()
        path = folder / f"{prefix}{name}"
        figure.savefig(path, dpi=110)
        plt.close(figure)
        written.append(path)
    return written


def plot_checks(runs: Sequence[Run], *, tasks: Sequence[str], folder: Path, prefix: str) -> Path:
    """URLs/s (median) of every row of the check tasks, a group of bars per task (PNG)."""
    import matplotlib as mpl  # noqa: PLC0415 - only when plotting

    mpl.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    shown = [task for task in tasks if cells_of(runs, task, "lychee") or "https" in task]
    figure, axes = plt.subplots(len(shown), 1, figsize=(8, 1.2 + 2.6 * len(shown)), squeeze=False)
    for axis, task in zip(axes[:, 0], shown, strict=True):
        rows = list(dict.fromkeys(run.row for run in runs if run.task == task))
        medians = [
            statistics.median(values(cells_of(runs, task, row), "urls_per_s")) for row in rows
        ]
        colours = ["tab:orange" if row.startswith("lychee") else "tab:blue" for row in rows]
        axis.barh(rows, medians, color=colours)
        axis.invert_yaxis()
        axis.set_title(f"{task}: URLs/s (median of the rounds; lychee in orange)")
        axis.grid(visible=True, axis="x", alpha=0.3)
    figure.tight_layout()
    path = folder / f"{prefix}check_throughput.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
