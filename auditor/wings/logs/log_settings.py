"""The access logs' settings: the option values checked and gathered in one record. Pure.

`--access-log PATH` (repeatable: a file, a folder, a glob, `-` for stdin), `--log-format`,
`--log-field NAME=KEY`, `--log-days N`, `--log-error-rate PERCENT`, `--crawler-ranges FILE`
(or `googlebot=FILE`, `bingbot=FILE` for a file as Google or Bing publish it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path as FilePath
from types import MappingProxyType

from auditor.config import AuditConfig
from auditor.errors import ConfigError
from auditor.wings.logs.crawler_names import Family
from auditor.wings.logs.log_formats import LogField, LogFormat, Path

STDIN = FilePath("-")


@dataclass(frozen=True, slots=True)
class RangesFile:
    """A `--crawler-ranges` value: a file, and the crawler it is for when it is a published one."""

    path: FilePath
    family: Family | None  # None: our snapshot's format, naming its crawlers itself


@dataclass(frozen=True, slots=True)
class LogsConfig:
    """What the access logs' part of a run needs to know."""

    sources: tuple[FilePath, ...]
    format: LogFormat
    fields: Mapping[LogField, Path]
    days: int
    error_rate: float  # percent
    ranges: tuple[RangesFile, ...]
    helpers: int = 0  # processes checking big logs' plain lines beside the run's (--workers)


def logs_config(config: AuditConfig) -> LogsConfig | None:
    """The run's access logs' settings; None without `--access-log`. ConfigError for bad ones."""
    if not config.access_logs:
        return None
    try:
        log_format = LogFormat(config.log_format)
    except ValueError:
        choices = ", ".join(member.value for member in LogFormat)
        raise ConfigError(f"--log-format wants one of: {choices}") from None
    return LogsConfig(
        sources=config.access_logs,
        format=log_format,
        fields=field_paths(log_field(text) for text in config.log_fields),
        days=config.log_days,
        error_rate=config.log_error_rate,
        ranges=tuple(ranges_file(text) for text in config.crawler_ranges),
        helpers=config.workers - 1,
    )


def log_field(text: str) -> tuple[str, str]:
    """`--log-field NAME=KEY` split (ConfigError naming the field names when it is not one)."""
    name, equals, key = text.partition("=")
    name, key = name.strip(), key.strip()
    names = ", ".join(member.value for member in LogField)
    if not equals or not key or not all(key.split(".")):
        raise ConfigError(
            f"--log-field wants NAME=KEY (a JSON lines' key; a.b for a nested one), not {text!r}"
        )
    if name not in {member.value for member in LogField}:
        raise ConfigError(f"--log-field: no field {name!r} (the fields: {names})")
    return name, key


def field_paths(pairs: Iterable[tuple[str, str]]) -> Mapping[LogField, Path]:
    """The `--log-field` pairs as the JSON reader's paths."""
    return MappingProxyType({LogField(name): tuple(key.split(".")) for name, key in pairs})


def ranges_file(text: str) -> RangesFile:
    """A `--crawler-ranges` value: `FILE`, `googlebot=FILE` or `bingbot=FILE`."""
    name, equals, path = text.partition("=")
    if equals and name in {member.value for member in Family}:
        return RangesFile(FilePath(path), Family(name))
    return RangesFile(FilePath(text), None)
