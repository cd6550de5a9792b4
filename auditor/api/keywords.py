"""The library's keyword options: the command's long options, as the option table declares them.

`per_host=4`, `no_check=True`, `json="r.json"`: the names and value types of the TOML config, so
that a library option, a TOML key and a flag never disagree (auditor.options.table says which
options the library takes). Blocking (it checks files and folders, as the command does): call it
from a thread in a loop.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from auditor.config import AuditConfig
from auditor.errors import ConfigError, ConfigFileError
from auditor.options.build import STDOUT, config_from_values, targets_from
from auditor.options.row import Place
from auditor.options.table import defaults
from auditor.options.values import option_values, read_config_file

Target = str | os.PathLike[str]


def config_of(targets: Sequence[Target], options: Mapping[str, object]) -> AuditConfig:
    """The run's configuration; UsageError (ConfigError, ConfigFileError) naming a bad option.

    `config="audit.toml"` reads that file first, as `--config` does; the other options win.
    """
    given = option_values({k: _plain(v) for k, v in options.items()}, place=Place.LIBRARY)
    values = defaults()
    config_file = given.pop("config", None)
    if config_file is not None:
        path = Path(str(config_file))
        try:
            from_file = option_values(read_config_file(path), place=Place.CONFIG, base=path.parent)
        except ConfigFileError as exc:
            raise ConfigFileError(f"config {path}: {exc}") from None
        from_file.pop("targets", None)  # the targets are the call's
        values.update(from_file)
    values.update(given)
    if values["json"] == STDOUT:
        raise ConfigError("json='-' (stdout) is for the command; give the library a file path")
    return config_from_values(values, targets_from([os.fspath(target) for target in targets]))


def _plain(value: object) -> object:
    """A path as its text, a tuple as a list: the values a TOML file would hold."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value
