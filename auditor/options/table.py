"""Every option of the auditor, declared once: the one table the rest is derived from.

An option's name, `--help` group and text, and the places it may be given (`Place`): the core's
rows (auditor.options.core_rows), then each wing's own (its Feature's `rows`, in the order of
auditor.flow.registry). Its default and range are its AuditConfig field's
(auditor.options.row). The command line's parser (auditor.cli.parser), the reader of `--config`
files, of fleet sites and of the library's keywords (auditor.options.values) and the reference
page (docs/reference/options.md) are all made from OPTIONS, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import MappingProxyType

from auditor.flow.registry import WINGS
from auditor.options.core_rows import CORE
from auditor.options.row import Group, Option, Place

OPTIONS: tuple[Option, ...] = (*CORE, *(row for wing in WINGS for row in wing.rows))
BY_DEST = MappingProxyType({option.dest: option for option in OPTIONS})


def grouped() -> Iterator[tuple[Group, list[Option]]]:
    """The options group by group, in the order of `--help`."""
    for group in Group:
        members = [option for option in OPTIONS if option.group is group]
        if members:
            yield group, members


def defaults() -> dict[str, object]:
    """Every option at its default, by dest (what a run given nothing starts from)."""
    return {option.dest: option.default_value() for option in OPTIONS}


def given_at(place: Place) -> frozenset[str]:
    """The dests that `place` may set."""
    return frozenset(option.dest for option in OPTIONS if place in option.places)
