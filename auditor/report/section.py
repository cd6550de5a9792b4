"""A wing's section of the report: where its JSON goes, and how each output shows it.

The outputs take a run's sections as they come and name no wing (auditor.report.publish): the
JSON report puts each at its place, the HTML report includes each part's template in its slot,
the terminal prints its lines, the metrics add its gauges, JUnit its failing cases, the Markdown
summary its text, the verdict line its clause, and the run's decision counts its
regressions. Pure: no I/O.

See docs/explanation/design.md#wings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from auditor.codes import Code
from auditor.results.verdict import KnownCounts

Json = dict[str, object]


class Slot(StrEnum):
    """Where an HTML part goes in the report."""

    TOP = "top"  # under the headline's cards: what the run itself did (history, changes)
    PAGES = "pages"  # after the sitemaps: what was found beside them (coverage)


@dataclass(frozen=True, slots=True)
class HtmlPart:
    """A section as the HTML report shows it: its own template, given its own view."""

    anchor: str  # the part's id, and its link in the report's contents
    title: str  # the link's words
    slot: Slot
    template: str  # `package:file`, a file of the package's `templates/` (it sees `part.view`)
    view: object  # a frozen record of what the template shows, bounded
    new_codes: Mapping[Code, int] = field(default_factory=dict)  # codes new since... (chips)


@dataclass(frozen=True, slots=True)
class Lines:
    """A section as the terminal's summary says it."""

    head: tuple[str, ...] = ()  # under the headline, with the run's other counts
    tail: tuple[str, ...] = ()  # after the codes, before the reports' paths


class Series(Protocol):
    """One labelled series of a gauge (prometheus_client's)."""

    def set(self, value: float) -> None:
        """Its value."""


class Metric(Protocol):
    """A gauge, labelled by the run's target first (auditor.report.metrics makes it)."""

    def labels(self, *values: str) -> Series:
        """The series of these label values."""
        ...


# (name, documentation, *label names beside `target`) -> the gauge.
MakeGauge = Callable[..., Metric]


@dataclass(frozen=True, slots=True)
class Regression:
    """Something that regressed since the baseline: a URL, a document or a target.

    auditor.wings.baseline.compare finds them; JUnit, the HTML and the terminal show them.
    """

    kind: str  # "url", "sitemap" or "target"
    subject: str
    codes: tuple[str, ...]  # its new codes at or above --fail-on-new (empty: only its verdict)
    verdict: str | None  # a URL that became not indexable: the reason it is not, now
    sitemap: str | None = None
    line: int | None = None

    @property
    def first_code(self) -> str:
        """What names it: its worst new code, else `not_indexable`."""
        if not self.codes:
            return "not_indexable"
        return min(self.codes, key=lambda code: (-Code(code).severity.rank, code))

    def to_json(self) -> dict[str, object]:
        """One entry of the report's `diff.regression_examples`."""
        return {
            "kind": self.kind,
            "subject": self.subject,
            "codes": list(self.codes),
            "became_not_indexable": self.verdict,
            "sitemap": self.sitemap,
            "line": self.line,
        }


class RegressionSource(Protocol):
    """The run's regressions, failing JUnit cases of their own suite, read back one at a time."""

    regressions: int

    def regression_rows(self, *, limit: int | None = None) -> Iterator[Regression]:
        """Every one (blocking)."""
        ...


class Section(Protocol):
    """A wing's typed part of the report (a frozen record): its JSON and its views."""

    @property
    def place(self) -> str:
        """Its field: `summary.<key>`, or `<key>` of the report itself (before the summary)."""
        ...

    def to_json(self) -> Json:
        """Its JSON, as the report's schema says it (docs/reference/report.md)."""
        ...

    def html(self) -> HtmlPart | None:
        """Its part of the HTML report (None: none)."""
        ...

    def lines(self) -> Lines:
        """Its lines of the terminal's summary."""
        ...

    def gauges(self, gauge: MakeGauge, target: str) -> None:
        """Its metrics, set on gauges made by `gauge` (docs/reference/metrics.md)."""
        ...

    def markdown(self) -> str | None:
        """Its part of the Markdown summary (None: none)."""
        ...

    @property
    def new_codes(self) -> Mapping[Code, int]:
        """Findings by code it calls new (since the baseline): marked in the tables of codes."""
        ...

    @property
    def regressions(self) -> int | None:
        """What it says failed beside the findings, for the run's decision (None: nothing)."""
        ...

    @property
    def clause(self) -> str | None:
        """Its words in the verdict line, after the run's counts (None: none)."""
        ...

    @property
    def last_known(self) -> KnownCounts | None:
        """The site as last known beyond this run's checks, for the verdict (None: not known)."""
        ...

    def junit(self) -> RegressionSource | None:
        """Its failing cases for the JUnit file (None: none)."""
        ...


def printable(text: str) -> str:
    """The text with every control character (an escape sequence, a line break) as `?`.

    One line per item, and nothing a terminal would obey: text from the network or from
    files never moves the cursor or recolours the screen.
    """
    return "".join(char if char.isprintable() else "?" for char in text)


def placed(sections: Sequence[Section], *, summary: bool) -> Json:
    """The sections' JSON by key: those of `summary`, or those of the report itself."""
    fields: Json = {}
    for section in sections:
        where, _, key = section.place.rpartition(".")
        if (where == "summary") == summary:
            fields[key] = section.to_json()
    return fields
