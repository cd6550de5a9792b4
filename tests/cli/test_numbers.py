"""Every numeric setting has a range (auditor.config.RANGES), applied alike by the command line
(at parse time), `--config`, fleet files, the library's keyword options and AuditConfig.
"""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from auditor.api.keywords import config_of
from auditor.cli.fleet_file import fleet_plan
from auditor.cli.main import main
from auditor.cli.numbers import InRange
from auditor.cli.parser import build_parser, parse_command
from auditor.config import RANGES, AuditConfig, NumberRange, option_name
from auditor.errors import ConfigError, ExitCode, UsageError
from tests.helpers import target

TARGET = "https://example.com/"
FIELDS = {field.name for field in fields(AuditConfig)}
OPTIONS = sorted(key for key, number_range in RANGES.items() if number_range.option)
FLEET_ONLY = {"fleet_workers", "fleet_concurrency"}  # the fleet's, not a site's configuration
COMMAND_ONLY = {"keep"}  # what the command does with the reports, not a run's configuration
NOT_FIELDS = FLEET_ONLY | COMMAND_ONLY
NEED_HISTORY = {"budget", "budget_time_s", "max_age_days"}  # given only with --history


def dest(key: str) -> str:
    """The option's own name for a setting: `max_age` for `max_age_days`."""
    return option_name(key).removeprefix("--").replace("-", "_")


def history(key: str) -> list[str]:
    """The options a setting needs beside it: a history, or access logs."""
    if key in NEED_HISTORY:
        return ["--history", "h.sqlite"]
    return ["--access-log", "access.log"] if key.startswith("log_") else []


def outside(number_range: NumberRange) -> list[int | float]:
    """Values just past each end, and the values no range holds."""
    least, most = number_range.least, number_range.most
    if number_range.integer:
        return [least - 1, most + 1, most * 1000, 10**18]
    return [least / 2 if least > 0 else -0.5, most * 1.5, 1e300, float("inf"), float("nan")]


def test_every_numeric_flag_has_its_range() -> None:
    """No flag takes a bare int or float: each number is checked against RANGES as parsed."""
    for action in build_parser()._actions:
        assert action.type not in (int, float), action.option_strings
        if isinstance(action.type, InRange):
            assert action.option_strings == [option_name(action.type.key)]
    keyed = {a.type.key for a in build_parser()._actions if isinstance(a.type, InRange)}
    assert keyed == set(OPTIONS)
    assert {key for key in RANGES if key not in NOT_FIELDS} <= FIELDS


@pytest.mark.parametrize("key", OPTIONS)
def test_out_of_range_on_the_command_line_is_exit_2_in_one_line(
    key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    flag = option_name(key)
    for value in outside(RANGES[key]):
        assert main([flag, str(value), TARGET]) == ExitCode.USAGE, value
        err = capsys.readouterr().err
        assert len(err.splitlines()) == 1, err
        assert flag in err
        assert "Traceback" not in err


@pytest.mark.parametrize("key", OPTIONS)
def test_both_ends_of_a_range_are_taken(key: str) -> None:
    flag = option_name(key)
    for value in (RANGES[key].least, RANGES[key].most):
        args = build_parser().parse_args([flag, str(value), TARGET])
        assert getattr(args, dest(key)) == value
        if key in FIELDS:
            _, config = parse_command([flag, str(value), *history(key), TARGET])
            assert getattr(config, key) == value


@pytest.mark.parametrize("key", OPTIONS)
def test_out_of_range_in_a_config_file_names_the_key(key: str, tmp_path: Path) -> None:
    name = option_name(key).removeprefix("--")
    for value in outside(RANGES[key]):
        toml = f"{name} = {_toml(value)}\n"
        (tmp_path / "audit.toml").write_text(toml)
        with pytest.raises(UsageError, match=repr(name)):
            parse_command(["--config", str(tmp_path / "audit.toml"), TARGET])


@pytest.mark.parametrize("key", sorted(set(OPTIONS) - NOT_FIELDS))
def test_out_of_range_in_a_fleet_file_names_the_site(key: str, tmp_path: Path) -> None:
    name = option_name(key).removeprefix("--")
    fleet = tmp_path / "sites.toml"
    for value in outside(RANGES[key]):
        fleet.write_text(f"[[site]]\ntarget = '{TARGET}'\n{name} = {_toml(value)}\n")
        args, _ = parse_command(["--fleet", str(fleet)])
        with pytest.raises(UsageError, match=repr(name)):
            fleet_plan(args, ["--fleet", str(fleet)])


@pytest.mark.parametrize("key", sorted(RANGES.keys() - NOT_FIELDS))
def test_the_library_applies_the_same_ranges(key: str) -> None:
    for value in outside(RANGES[key]):
        with pytest.raises(ConfigError):
            AuditConfig(targets=(target(TARGET),), **setting(key, value))
        if RANGES[key].option:
            with pytest.raises(UsageError):
                config_of([TARGET], {dest(key): value})
    for value in (RANGES[key].least, RANGES[key].most):
        config = AuditConfig(targets=(target(TARGET),), **setting(key, value))
        assert getattr(config, key) == value


def test_a_number_that_is_no_number_is_refused_as_such() -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        InRange("timeout_s")("1e300")
    with pytest.raises(ValueError, match="invalid literal"):
        InRange("concurrency")("2.5")


def setting(key: str, value: float) -> dict[str, Any]:
    return {key: value, "history": Path("h.sqlite")} if key in NEED_HISTORY else {key: value}


def _toml(value: float) -> str:
    """TOML for a number: `inf` and `nan` are TOML's own words."""
    return {"inf": "inf", "nan": "nan"}.get(str(value), str(value))
