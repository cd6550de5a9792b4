"""The command line's options: `--help` shows them in groups, each flag in exactly one."""

from __future__ import annotations

from pathlib import Path

import pytest

from auditor.cli.parser import build_parser, parse_command
from auditor.errors import UsageError

GROUPS = (
    *("output", "what to request", "politeness", "bounds", "crawl (coverage)", "processes"),
    *("monitoring", "big sites", "access logs (Googlebot)", "fleet"),
)
UNGROUPED = {"--help", "--version", "--demo", "--config"}  # what the command is, not how it runs


def test_help_groups_every_flag() -> None:
    parser = build_parser()
    grouped: dict[str, list[str]] = {}
    for group in parser._action_groups:
        flags = [o for a in group._group_actions for o in a.option_strings if o.startswith("--")]
        grouped[group.title or ""] = flags
    assert set(GROUPS) <= set(grouped)
    flags = [flag for title in GROUPS for flag in grouped[title]]
    assert len(flags) == len(set(flags))  # no flag in two groups
    every = {o for a in parser._actions for o in a.option_strings if o.startswith("--")}
    assert every - set(flags) == UNGROUPED
    assert "--per-host" in grouped["politeness"]
    assert "--engine" in grouped["what to request"]
    assert "--workers" in grouped["processes"]
    assert "--baseline" in grouped["monitoring"]
    assert "--history" in grouped["big sites"]
    assert "--access-log" in grouped["access logs (Googlebot)"]


def test_crawl_options_reach_the_configuration() -> None:
    argv = ["https://e.example/", "--crawl", "--crawl-max", "50", "--crawl-depth", "7"]
    argv += ["--crawl-host", "shop.e.example:8443", "--crawl-start", "https://e.example/a"]
    argv += ["--crawl-nofollow", "--deep-clicks", "5", "--crawl-page-bytes", "1000"]
    _, config = parse_command(argv)
    assert config is not None
    assert (config.crawl, config.crawl_max, config.crawl_depth, config.deep_clicks) == (
        True,
        50,
        7,
        5,
    )
    assert config.crawl_hosts == ("shop.e.example:8443",)
    assert config.crawl_starts == ("https://e.example/a",)
    assert (config.crawl_nofollow, config.crawl_page_bytes) == (True, 1000)
    _, plain = parse_command(["https://e.example/"])
    assert plain is not None
    assert (plain.crawl, plain.crawl_max, plain.crawl_page_bytes) == (False, 100_000, 2 << 20)


@pytest.mark.parametrize(
    "argv",
    [
        ["--crawl", "local.xml"],  # a file alone: no site to start from
        ["https://e.example/", "--crawl", "--crawl-start", "/relative"],
        ["https://e.example/", "--crawl", "--crawl-host", "e.example/path"],
        ["https://e.example/", "--crawl", "--crawl-max", "0"],
        ["https://e.example/", "--crawl", "--deep-clicks", "-1"],
    ],
)
def test_crawl_options_that_cannot_work_are_usage_errors(tmp_path: Path, argv: list[str]) -> None:
    (tmp_path / "local.xml").write_text("<urlset/>")
    argv = [str(tmp_path / a) if a == "local.xml" else a for a in argv]
    with pytest.raises(UsageError):
        parse_command(argv)


def test_the_demo_crawls_when_it_checks() -> None:
    _, checking = parse_command(["--demo"])
    _, validating = parse_command(["--demo", "--no-check"])
    assert checking is not None
    assert validating is not None
    assert (checking.crawl, validating.crawl) == (True, False)
