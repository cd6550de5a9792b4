"""The library's keyword options: the command's long options, checked by the command's parser.

`per_host=4`, `no_check=True`, `json="r.json"`: the names and value types of the TOML config
(auditor.cli.config_file), so that a library option, a TOML key and a flag never disagree.
Blocking (it checks files and folders, as the command does): call it from a thread in a loop.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from auditor.cli.config_file import config_values, read_config_file
from auditor.cli.options import build_parser, config_from_args, targets_from
from auditor.config import AuditConfig
from auditor.errors import ConfigError, ConfigFileError

# Options of the command's own display, or that run something else: no meaning to the library.
COMMAND_ONLY = frozenset(
    {"demo", "quiet", "verbose", "no_progress", "no_color", "targets", "keep"}
    | {"fleet", "scheduler", "fleet_workers", "fleet_concurrency"}  # a fleet is the command's
)

Target = str | os.PathLike[str]


def config_of(targets: Sequence[Target], options: Mapping[str, object]) -> AuditConfig:
    """The run's configuration; UsageError (ConfigError, ConfigFileError) naming a bad option.

    `config="audit.toml"` reads that file first, as `--config` does; the other options win.
    """
    options = dict(options)
    refused = sorted(COMMAND_ONLY & {key.replace("-", "_") for key in options})
    if refused:
        raise ConfigError(f"{refused[0]!r} is an option of the command, not of the library")
    parser = build_parser()
    values: dict[str, object] = {}
    config_file = options.pop("config", None)
    if config_file is not None:
        if not isinstance(config_file, str | os.PathLike):
            raise ConfigError(f"config wants a path, not {config_file!r}")
        path = Path(config_file)
        try:
            values.update(config_values(parser, read_config_file(path), base=path.parent))
        except ConfigFileError as exc:
            raise ConfigFileError(f"config {path}: {exc}") from None
        values.pop("targets", None)  # the targets are the call's
    values.update(config_values(parser, {k: _plain(v) for k, v in options.items()}, base=Path()))
    args = parser.parse_args([])  # every option at its default
    for dest, value in values.items():
        setattr(args, dest, value)
    if args.json == Path("-"):
        raise ConfigError("json='-' (stdout) is for the command; give the library a file path")
    return config_from_args(args, targets_from([os.fspath(target) for target in targets]))


def _plain(value: object) -> object:
    """A path as its text, a tuple as a list: the values a TOML file would hold."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value
