"""The command line's options: `--help` shows them in groups, each flag in exactly one."""

from __future__ import annotations

from auditor.cli.options import build_parser

GROUPS = (
    *("output", "what to request", "politeness", "bounds", "crawl (coverage)", "processes"),
    *("monitoring", "fleet"),
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
