"""`--config audit.toml`: the long options as keys, checked against the parser.

The argparse definitions are the one source of truth: a key is a long option's name (`-` or `_`
alike), its value is checked against that option's type and choices. Values from the file become
the namespace's starting values, so anything given on the command line wins.

See docs/reference/config.md.
"""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from auditor.cli.numbers import InRange
from auditor.config import out_of_range
from auditor.errors import ConfigFileError

# Options that run something else or name the file itself: never keys.
NOT_KEYS = frozenset({"config", "help", "version", "print_schema"})
MAX_COUNT = 2  # a counted flag (`quiet = 2` is -qq)


def read_config_file(path: Path) -> dict[str, object]:
    """The TOML table of `path` (a blocking read: the CLI calls it before its event loop)."""
    try:
        with path.open("rb") as source:
            return tomllib.load(source)
    except OSError as exc:
        raise ConfigFileError(f"cannot read it ({exc.strerror})") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigFileError(f"not valid TOML ({exc})") from exc


def config_values(
    parser: argparse.ArgumentParser, table: Mapping[str, object], *, base: Path
) -> dict[str, object]:
    """The file's values by argparse `dest`; relative paths are taken from `base` (its folder)."""
    actions = {action.dest: action for action in parser._actions}  # noqa: SLF001 - no public API
    values: dict[str, object] = {}
    for key, value in table.items():
        dest = key.replace("-", "_")
        action = actions.get(dest)
        if dest in NOT_KEYS or action is None or not _is_key(action):
            raise ConfigFileError(f"unknown key {key!r}")
        values[dest] = _checked(key, action, value, base=base)
    return values


def _is_key(action: argparse.Action) -> bool:
    """Long options, and the positional TARGETs (key `targets`)."""
    return not action.option_strings or any(s.startswith("--") for s in action.option_strings)


def _checked(key: str, action: argparse.Action, value: object, *, base: Path) -> object:
    """The value as argparse would have made it from the command line, or ConfigFileError."""
    if isinstance(action, argparse._StoreTrueAction):  # noqa: SLF001 - flags: a boolean
        if not isinstance(value, bool):
            raise ConfigFileError(f"key {key!r} wants true or false, not {value!r}")
        return value
    if isinstance(action, argparse._CountAction):  # noqa: SLF001 - `-qq`: true, or how many
        if isinstance(value, bool):
            return int(value)
        if not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
            raise ConfigFileError(f"key {key!r} wants true, false or 0 to {MAX_COUNT}")
        return value
    if isinstance(action, argparse._AppendAction) or action.nargs == "*":  # noqa: SLF001
        if not isinstance(value, list):
            raise ConfigFileError(f"key {key!r} wants a list, not {value!r}")
        return [_one(key, action, item, base=base) for item in value]
    return _one(key, action, value, base=base)


def _one(key: str, action: argparse.Action, value: object, *, base: Path) -> object:
    kind = action.type
    number = kind.number if isinstance(kind, InRange) else kind
    result: object
    match value:
        case bool():  # TOML true/false is never a number here
            result = None
        case int() if number is int:
            result = value
        case int() | float() if number is float:
            result = float(value)
        case str() if kind is Path:
            path = Path(value)
            result = path if path.is_absolute() else base / path
        case str() if kind is None:
            result = value
        case _:
            result = None
    if result is None:
        wanted = _WANTED.get(number, "a string") if isinstance(number, type) else "a string"
        raise ConfigFileError(f"key {key!r} wants {wanted}, not {value!r}")
    problem = out_of_range(kind.key, result) if isinstance(kind, InRange) else None
    if problem is not None:  # the command line's range, checked the same way
        raise ConfigFileError(f"key {key!r} {problem}")
    choices = action.choices
    if choices is not None and result not in choices:
        raise ConfigFileError(f"key {key!r} wants one of: {', '.join(map(str, choices))}")
    return result


_WANTED: dict[type, str] = {int: "an integer", float: "a number"}


def parse_with_config(
    parser: argparse.ArgumentParser,
    argv: Sequence[str] | None,
    *,
    table_for: Callable[[Path], Mapping[str, object]],
) -> argparse.Namespace:
    """Parse `argv`; with `--config`, the file's values first and the command line over them."""
    first = parser.parse_args(argv)
    if first.config is None:
        return first
    try:
        values = config_values(parser, table_for(first.config), base=first.config.parent)
    except ConfigFileError as exc:
        raise ConfigFileError(f"--config {first.config}: {exc}") from None
    # argparse keeps a namespace's existing attributes as defaults: command-line flags overwrite
    # them. Repeatable options start empty so that given ones replace the file's list.
    start = argparse.Namespace(**{k: v for k, v in values.items() if not isinstance(v, list)})
    merged = parser.parse_args(argv, start)
    for dest, value in values.items():
        if isinstance(value, list) and not getattr(first, dest):
            setattr(merged, dest, value)
    for one, other in (("quiet", "verbose"), ("verbose", "quiet")):
        if getattr(first, one):  # the command line's choice of the exclusive pair wins
            setattr(merged, other, False)
    return merged
