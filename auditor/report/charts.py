"""Geometry of the HTML report's inline SVG charts: numbers in, boxes out. Pure: no I/O.

The template only draws what is computed here, so a chart needs no JavaScript and no
external request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

CHART_WIDTH = 360
LABEL_WIDTH = 150  # left of horizontal bars: the label
VALUE_WIDTH = 84  # right of horizontal bars: the count and share
ROW_HEIGHT = 22
BAR_HEIGHT = 14
COLUMN_AREA_HEIGHT = 120  # the histogram's bars; its labels go below
AXIS_HEIGHT = 34


@dataclass(frozen=True, slots=True)
class Item:
    """One value to chart: its label, count and tone (a CSS class suffix)."""

    label: str
    count: int
    tone: str


@dataclass(frozen=True, slots=True)
class HBar:
    """One horizontal bar, placed: label and count at `y`, the bar `width` wide."""

    label: str
    count: str  # formatted, with its share of the total
    tone: str
    y: int
    width: int


@dataclass(frozen=True, slots=True)
class HBarChart:
    """Horizontal bars, one per row."""

    width: int
    height: int
    label_width: int
    bars: tuple[HBar, ...]


@dataclass(frozen=True, slots=True)
class Column:
    """One histogram column, placed; `height` 0 draws nothing but the label."""

    label: str
    count: str
    tone: str
    x: int
    y: int
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class ColumnChart:
    """A histogram: columns over a baseline at `base_y`, labels below it."""

    width: int
    height: int
    base_y: int
    columns: tuple[Column, ...]


def hbar_chart(items: Sequence[Item]) -> HBarChart:
    """Bars scaled to the largest count; each shows its count and share of the total."""
    total = sum(item.count for item in items)
    largest = max((item.count for item in items), default=0)
    room = CHART_WIDTH - LABEL_WIDTH - VALUE_WIDTH
    bars = tuple(
        HBar(
            label=item.label,
            count=_count_and_share(item.count, total),
            tone=item.tone,
            y=row * ROW_HEIGHT,
            width=_scaled(item.count, largest, room),
        )
        for row, item in enumerate(items)
    )
    return HBarChart(CHART_WIDTH, max(1, len(items)) * ROW_HEIGHT, LABEL_WIDTH, bars)


def column_chart(items: Sequence[Item]) -> ColumnChart:
    """Columns side by side, scaled to the largest count."""
    largest = max((item.count for item in items), default=0)
    step = CHART_WIDTH // max(1, len(items))
    top = 16  # room for the count above the tallest column
    columns = []
    for index, item in enumerate(items):
        height = _scaled(item.count, largest, COLUMN_AREA_HEIGHT - top)
        columns.append(
            Column(
                label=item.label,
                count=f"{item.count:,}",
                tone=item.tone,
                x=index * step + 3,
                y=COLUMN_AREA_HEIGHT - height,
                width=step - 6,
                height=height,
            )
        )
    height = COLUMN_AREA_HEIGHT + AXIS_HEIGHT
    return ColumnChart(CHART_WIDTH, height, COLUMN_AREA_HEIGHT, tuple(columns))


def _scaled(count: int, largest: int, room: int) -> int:
    """A length for `count`; anything above zero stays visible (2 px at least)."""
    if count <= 0 or largest <= 0:
        return 0
    return max(2, round(room * count / largest))


def _count_and_share(count: int, total: int) -> str:
    if not total:
        return f"{count:,}"
    share = 100 * count / total
    shown = f"{share:.0f}" if share >= 1 or share == 0 else "<1"
    return f"{count:,} ({shown}%)"
