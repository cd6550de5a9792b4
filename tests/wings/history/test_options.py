"""The history's options: their ranges, what needs --history, durations, config-file keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.cli.main import main
from auditor.cli.parser import parse_command
from auditor.config import AuditConfig, Target, TargetKind
from auditor.demo.server import serve
from auditor.errors import ConfigError, ExitCode
from auditor.options.row import parse_duration
from tests.wings.history.site import HistorySite, audit_night

SITE = "https://example.com/"
TARGET = (Target(SITE, TargetKind.SITE, SITE),)


@pytest.mark.parametrize(
    "argv",
    [
        ["--budget", "10"],  # no --history
        ["--budget-time", "8h"],
        ["--max-age", "7"],
        ["--resume"],
        ["--history", "h.sqlite", "--budget", "-1"],
        ["--history", "h.sqlite", "--budget", "1000000001"],
        ["--history", "h.sqlite", "--max-age", "0"],
        ["--history", "h.sqlite", "--max-age", "3651"],
        ["--history", "h.sqlite", "--budget-time", "0"],
        ["--history", "h.sqlite", "--budget-time", "31d"],
        ["--history", "h.sqlite", "--budget-time", "soon"],
        ["--history", "h.sqlite", "--budget-time", "-5m"],
        ["--history", "h.sqlite", "--sample", "5"],
        ["--history", "h.sqlite", "--no-check"],
        ["--history", "."],  # a folder
    ],
)
def test_usage_errors_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main([*argv, "--out", str(tmp_path), SITE]) == ExitCode.USAGE
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("3600", 3600), ("90s", 90), ("45m", 2700), ("8h", 28_800), ("1d", 86_400), ("1h30m", 5400)],
)
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


def test_the_library_refuses_what_the_command_refuses() -> None:
    with pytest.raises(ConfigError):
        AuditConfig(targets=TARGET, budget=5)
    with pytest.raises(ConfigError):
        AuditConfig(targets=TARGET, history=Path("h"), sample=3)
    assert AuditConfig(targets=TARGET, history=Path("h"), budget=0).budget == 0


def test_config_file_keys(tmp_path: Path) -> None:
    config = tmp_path / "audit.toml"
    config.write_text(
        'targets = ["https://example.com/"]\nhistory = "site.history"\nbudget = 150000\n'
        'budget-time = "7h30m"\nmax-age = 7\nresume = true\n'
    )
    _, built = parse_command(["--config", str(config)])
    assert built is not None
    assert built.history == tmp_path / "site.history"  # from the config file's folder
    assert (built.budget, built.budget_time_s, built.max_age_days, built.resume) == (
        150_000,
        27_000.0,
        7,
        True,
    )


async def test_a_time_budget_stops_the_requests_and_carries_the_rest(tmp_path: Path) -> None:
    site = HistorySite(20)
    for page in site.pages.values():
        page.delay_s = 0.3
    history = tmp_path / "h.sqlite"
    async with serve(site.routes) as served:
        audited = await audit_night(
            tmp_path, served.base, 0, history=history, budget_time_s=1.5, concurrency=1
        )
    said = audited.report["summary"]["history"]
    assert said["stopped_by"] == "budget_time"
    assert 0 < said["requested"] < 20
    assert said["requested"] + said["never_checked"] == 20
    assert site.requests.total() == said["requested"]
