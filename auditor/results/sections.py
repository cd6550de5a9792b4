"""A feature's part of the report, as every output shows it: the seam between run and views.

A feature that adds to a run's report (the access logs, `--access-log`) hands the sink one
ReportSection once its records are all in: a typed record that says itself in each output
(the JSON summary's key, a clause of the verdict line, lines for the terminal and Markdown,
gauges for the metrics, a part of the HTML report). The core shows sections; it names none.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class GaugeValues:
    """One metrics gauge a section writes: its name (after the prefix), help, labels, values.

    Each sample is (its label values, the value); the `target` label comes first, added by
    the metrics writer.
    """

    name: str
    doc: str
    labels: tuple[str, ...]
    samples: tuple[tuple[tuple[str, ...], float], ...]


class ReportSection(Protocol):
    """A feature's typed part of the report (a frozen dataclass of its own)."""

    @property
    def key(self) -> str:
        """Its key in the JSON report's `summary`, and its HTML part's id."""

    @property
    def title(self) -> str:
        """Its heading in the HTML report (and its link there)."""

    def to_json(self) -> dict[str, object]:
        """Its object in the JSON report's `summary` (docs/reference/report.md)."""

    def verdict_clause(self) -> str:
        """A clause of the verdict line (`Googlebot crawled 61 % of ...`); "" for none."""

    def terminal_lines(self) -> Sequence[str]:
        """Lines for the terminal's summary, plain text."""

    def markdown_lines(self) -> Sequence[str]:
        """Lines for the Markdown summary, every value from the network escaped."""

    def gauges(self) -> Sequence[GaugeValues]:
        """Its gauges for `--metrics`."""

    def html(self) -> str:
        """Its part of the HTML report: one `<section>`, every value escaped (markupsafe)."""
