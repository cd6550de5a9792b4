"""What an option is: its row's record, and the sets its fields take. Pure: no I/O.

The core's rows are auditor.options.table's, each wing's its own (its Feature's `rows`); an
option's value (its default, its range) is declared once, on its AuditConfig field, and its row
reads it from there (`Option.field`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, fields
from enum import Enum, StrEnum
from types import MappingProxyType
from typing import Any

from auditor.config import RANGES, AuditConfig, NumberRange

_UNIT_S = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86_400.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)([smhd]?)")
_DURATION = re.compile(r"(?:\d+(?:\.\d+)?[smhd])+|\d+(?:\.\d+)?")
# AuditConfig's fields by name: an option of a field takes its default and range from it.
FIELDS: MappingProxyType[str, Field[Any]] = MappingProxyType(
    {item.name: item for item in fields(AuditConfig) if item.default is not MISSING}
)


class Place(StrEnum):
    """Where an option may be given besides the command line, which takes every option."""

    CONFIG = "config"  # a key of the `--config` TOML file
    LIBRARY = "library"  # a keyword of auditor.run() and auditor.audit_site()
    SITE = "fleet site"  # a key of a fleet file's [[site]] table


class Kind(StrEnum):
    """What an option's value is; the parser and the key reader check it alike."""

    FLAG = "flag"  # given or not: true or false in a file
    COUNT = "count"  # -q, -qq: a number of times, 0 to MAX_COUNT
    TEXT = "text"
    PATH = "path"  # relative paths in a file are taken from the file's folder
    NUMBER = "number"  # an int or a float by its range (RANGES), always within it
    DURATION = "duration"  # `90m`, `8h`, `1h30m` (or seconds): a float of seconds, in its range
    CHOICE = "choice"  # one of `choices`


class Group(StrEnum):
    """The groups of `--help` and of the reference page, in their order."""

    COMMAND = ""  # what the command is (TARGET, --demo, --config): shown first, untitled
    OUTPUT = "output"
    REQUEST = "what to request"
    POLITENESS = "politeness"
    BOUNDS = "bounds"
    CRAWL = "crawl (coverage)"
    PROCESSES = "processes"
    MONITORING = "monitoring"
    BIG_SITES = "big sites"
    LOGS = "access logs (Googlebot)"
    FLEET = "fleet"


MAX_COUNT = 2  # a counted flag (`quiet = 2` is -qq)
EVERYWHERE = frozenset(Place)
# A run's outputs: a fleet names each site's itself.
RUN_OUTPUT = frozenset({Place.CONFIG, Place.LIBRARY})
# The command's own (how it shows itself, what it audits, the fleet): a config file may set it.
CONFIG_ONLY = frozenset({Place.CONFIG})
COMMAND_ONLY: frozenset[Place] = frozenset()  # runs something else, or names the file itself


def cores() -> int:
    """The cores this process may run on (CPU affinity), within --workers' range."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(cores or 1, int(RANGES["workers"].most))


@dataclass(frozen=True, slots=True)
class Option:
    """One option. `name` is its long flag without `--` (`per-host`), or `targets`."""

    name: str
    group: Group
    help: str
    kind: Kind = Kind.TEXT
    places: frozenset[Place] = EVERYWHERE
    default: object = None  # an option of no AuditConfig field's (a field's is the field's)
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    short: str | None = None  # `-o`
    repeat: bool = False  # given again for more: a list (`--include A --include B`)
    # The AuditConfig field it sets (or its RANGES key) when not its dest (`timeout_s`).
    setting: str | None = None
    exclusive: str | None = None  # a set of options of which one at most is given
    # A default the machine decides (its cores), computed when asked; `default_words` says it.
    default_factory: Callable[[], object] | None = None
    default_words: str | None = None
    optional_value: str | None = None  # `--print-schema` alone: this value
    checks_only: bool = False  # means nothing with --no-check (it shapes URL checks)
    # Not given, it is None (its field's default then): whether it was given matters (the
    # demo's quick values, --no-check's refusal of an option of checks).
    absent_none: bool = False

    @property
    def dest(self) -> str:
        """Its Python name: the attribute, the TOML key and the keyword (`per_host`)."""
        return self.name.replace("-", "_")

    @property
    def flag(self) -> str:
        """`--per-host`; `TARGET` for the positional targets."""
        return "TARGET" if self.positional else f"--{self.name}"

    @property
    def positional(self) -> bool:
        return self.name == "targets"

    @property
    def field(self) -> str | None:
        """The AuditConfig field it sets (None: the command's own, or read another way)."""
        name = self.setting or self.dest
        return name if name in FIELDS else None

    @property
    def number_range(self) -> NumberRange | None:
        """Its range, declared on its field (auditor.config.ranged) or with the command's."""
        if self.kind not in (Kind.NUMBER, Kind.DURATION):
            return None
        return RANGES[self.setting or self.dest]

    def default_value(self) -> object:
        """The value when not given, as the parser and the key readers give it.

        A fresh list for a repeatable one; the field's default for an option of a field (None
        when `absent_none`); else its own.
        """
        if self.default_factory is not None:
            return self.default_factory()
        if self.repeat or self.positional:
            return []
        if self.kind is Kind.COUNT:
            return 0
        if self.kind is Kind.FLAG:
            return False
        if self.absent_none:
            return None
        return self.shown_default()

    def shown_default(self) -> object:
        """Its default as the reference page says it: the field's (an enum by its value)."""
        field = self.field
        if field is None or self.repeat:
            return self.default_value() if self.absent_none else self.default
        value = FIELDS[field].default
        return value.value if isinstance(value, Enum) else value

    def said(self) -> str:
        """Its help, `%(default)s` said as its default (argparse's own for a machine's)."""
        if self.default_factory is not None:
            return self.help
        return self.help.replace("%(default)s", said_value(self.shown_default()))


def _choices(values: type[StrEnum]) -> tuple[str, ...]:
    return tuple(member.value for member in values)


def choices(values: type[StrEnum]) -> tuple[str, ...]:
    """An enum's values, as a choice option's."""
    return tuple(member.value for member in values)


def said_value(value: object) -> str:
    """A default as help text says it: `15` for 15.0, `get` for Method.GET."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value.value if isinstance(value, Enum) else value)


def parse_duration(text: str) -> float:
    """`--budget-time`'s value in seconds (`3600`, `90s`, `8h`, `1h30m`); ValueError if not."""
    compact = text.strip().lower().replace(" ", "")
    if not compact or not _DURATION.fullmatch(compact):
        raise ValueError(f"wants a duration (90m, 8h, 1d, 1h30m), not {text!r}")
    return sum(float(number) * _UNIT_S[unit] for number, unit in _DURATION_PART.findall(compact))
