"""The argparse type of a numeric option: a number, within its range (auditor.config)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from auditor.config import RANGES, out_of_range


class InRange:
    """`type=InRange("timeout_s")`: the text as the setting's number, refused out of its range.

    Out of range is argparse's ArgumentTypeError, so the command exits 2 at parse time naming
    the option and its range; the `--config` and fleet file readers check their values with
    the same range (auditor.options.values).
    """

    def __init__(self, key: str, *, parse: Callable[[str], float] | None = None) -> None:
        """`parse`: the text's number when it is no plain one (a duration: `8h`)."""
        self.key = key
        self.number: type[int] | type[float] = int if RANGES[key].integer else float
        self._parse = parse
        # argparse names a type by this when the text is no number ("invalid integer value")
        self.__name__ = "integer" if self.number is int else "number"

    def __call__(self, text: str) -> int | float:
        if self._parse is None:
            value = self.number(text)  # ValueError: argparse says which text is no number
        else:
            try:
                value = self._parse(text)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
        problem = out_of_range(self.key, value)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return value

    def __repr__(self) -> str:
        return f"InRange({self.key!r})"
