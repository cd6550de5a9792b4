"""Options given as keys: a `--config` file, a fleet site's table, the library's keywords.

A key is an option's long name, `-` or `_` alike (`per-host`, `per_host`); its value is checked
against the option's kind, choices and range in the one table (auditor.options.table), exactly
as the command line checks the flag. Where a key may be given is the table's `places`.

See docs/reference/config.md.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from auditor.config import out_of_range
from auditor.errors import ConfigError, ConfigFileError, UsageError
from auditor.files import read_input
from auditor.limits import MAX_CONFIG_BYTES
from auditor.options.row import MAX_COUNT, Kind, Option, Place, parse_duration
from auditor.options.table import BY_DEST


def read_config_file(path: Path) -> dict[str, object]:
    """The TOML table of `path` (a blocking read: call it before an event loop, or in a thread)."""
    try:
        return tomllib.loads(read_input(path, max_bytes=MAX_CONFIG_BYTES).decode("utf-8"))
    except OSError as exc:
        raise ConfigFileError(f"cannot read it ({exc.strerror})") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigFileError(f"not valid TOML ({exc})") from exc


def option_values(
    table: Mapping[str, object], *, place: Place, base: Path = Path()
) -> dict[str, object]:
    """The keys' values by dest, as the command line would have made them.

    Relative paths are taken from `base` (a file's folder). UsageError naming the first key
    that is no option, cannot be given at `place`, or holds a value the option cannot take.
    """
    values: dict[str, object] = {}
    for key, value in table.items():
        option = BY_DEST.get(key.replace("-", "_"))
        if option is None or not option.places:
            raise ConfigFileError(f"unknown key {key!r}")
        if place not in option.places:
            raise _not_here(key, option, place)
        if any("\0" in item for item in _texts(value)):  # no option, no file name takes one
            raise ConfigFileError(f"key {key!r} holds a NUL character")
        values[option.dest] = _checked(key, option, value, base=base)
    return values


def _texts(value: object) -> list[str]:
    """The strings a key's value holds: itself, or a list's."""
    items = value if isinstance(value, list) else [value]
    return [item for item in items if isinstance(item, str)]


def _not_here(key: str, option: Option, place: Place) -> UsageError:
    if place is Place.LIBRARY:
        return ConfigError(f"{option.dest!r} is an option of the command, not of the library")
    if place is Place.SITE:
        return ConfigFileError(f"key {key!r} is the fleet's, not a site's")
    return ConfigFileError(f"unknown key {key!r}")


def _checked(key: str, option: Option, value: object, *, base: Path) -> object:
    """The value as the command line would have made it, or ConfigFileError."""
    if option.kind is Kind.FLAG:
        if not isinstance(value, bool):
            raise ConfigFileError(f"key {key!r} wants true or false, not {value!r}")
        return value
    if option.kind is Kind.COUNT:  # `-qq`: true, or how many
        if isinstance(value, bool):
            return int(value)
        if not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
            raise ConfigFileError(f"key {key!r} wants true, false or 0 to {MAX_COUNT}")
        return value
    if option.repeat or option.positional:
        if not isinstance(value, list):
            raise ConfigFileError(f"key {key!r} wants a list, not {value!r}")
        return [_one(key, option, item, base=base) for item in value]
    return _one(key, option, value, base=base)


def _one(key: str, option: Option, value: object, *, base: Path) -> object:
    number_range = option.number_range
    integer = number_range is not None and number_range.integer
    result: object
    match value:
        case bool():  # TOML true/false is never a number here
            result = None
        case str() if option.kind is Kind.DURATION:
            try:
                result = parse_duration(value)
            except ValueError as exc:
                raise ConfigFileError(f"key {key!r} {exc}") from None
        case int() if number_range is not None:
            result = value if integer else float(value)
        case float() if number_range is not None and not integer:
            result = value
        case str() if option.kind is Kind.PATH:
            path = Path(value)
            result = path if path.is_absolute() else base / path
        case str() if option.kind in (Kind.TEXT, Kind.CHOICE):
            result = value
        case _:
            result = None
    if result is None:
        raise ConfigFileError(f"key {key!r} wants {_wanted(option)}, not {value!r}")
    if number_range is not None:  # the command line's range, checked the same way
        problem = out_of_range(option.setting or option.dest, result)
        if problem is not None:
            raise ConfigFileError(f"key {key!r} {problem}")
    if option.choices and result not in option.choices:
        raise ConfigFileError(f"key {key!r} wants one of: {', '.join(option.choices)}")
    return result


def _wanted(option: Option) -> str:
    number_range = option.number_range
    if option.kind is Kind.DURATION:
        return "a duration (90m, 8h, 1d, 1h30m) or seconds"
    if number_range is None:
        return "a string"
    return "an integer" if number_range.integer else "a number"
