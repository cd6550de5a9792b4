"""X-Robots-Tag lines that name several user agents, as a proxy merges them.

Google (Search Central, "Robots meta tag, data-nosnippet, and X-Robots-Tag specifications"): a
user agent's prefix applies to the rules after it (`otherbot: noindex, nofollow`). RFC 9110
§5.3 lets a recipient combine field lines of one name into one, joined by commas: two lines
`otherbot: noarchive` and `googlebot: noindex` may arrive as one. Pure: no I/O.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from auditor.checks.robots_rules import RobotsRules, agent_runs, header_robots

AGENTS = frozenset({"googlebot"})
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "noindex"),
    [
        ("otherbot: noarchive, googlebot: noindex", True),
        ("googlebot: noindex, otherbot: noarchive", True),
        ("otherbot: noarchive, GoogleBot: none", True),
        # The correct forms stay clean: noindex for another agent only.
        ("otherbot: noindex, googlebot: noarchive", False),
        ("otherbot: noindex, nofollow, googlebot: noarchive", False),
        ("googlebot: noarchive, otherbot: noindex", False),
        # No agent: every crawler.
        ("noindex, nofollow", True),
        ("noarchive, otherbot: noindex", False),
        ("noindex, otherbot: noarchive", True),
    ],
)
def test_a_merged_line_applies_each_agents_rules_to_that_agent(value: str, noindex: bool) -> None:
    assert header_robots([value], AGENTS).noindex is noindex


def test_merged_lines_say_what_the_separate_lines_say() -> None:
    lines = ["otherbot: noindex, nofollow", "googlebot: nofollow", "noarchive"]
    merged = ", ".join(lines)
    assert header_robots([merged], AGENTS) == header_robots(lines, AGENTS)
    assert header_robots([merged], AGENTS) == RobotsRules(nofollow=True)
    assert header_robots([merged], frozenset({"otherbot"})) == RobotsRules(
        noindex=True, nofollow=True
    )


@pytest.mark.parametrize(
    "date",
    [
        "25 Jun 2010 15:00:00 PST",  # Google's own example: colons in the time
        "Friday, 25-Jun-10 15:00:00 PST",  # RFC 850: a comma after the day's name
        "Fri, 25 Jun 2010 15:00:00 -0800",  # RFC 822
        "2010-06-25T15:00:00-08:00",  # ISO 8601
    ],
)
def test_an_unavailable_after_date_is_never_cut_into_agents(date: str) -> None:
    value = f"otherbot: noindex, googlebot: unavailable_after: {date}, nofollow"
    assert agent_runs(value) == [
        ("otherbot", "noindex"),
        ("googlebot", f"unavailable_after: {date}, nofollow"),
    ]
    said = header_robots([value], AGENTS)
    assert said == RobotsRules(unavailable_after=date, nofollow=True)
    assert said.expired(NOW)
    assert header_robots([f"unavailable_after: {date}, otherbot: noindex"], AGENTS) == (
        RobotsRules(unavailable_after=date)
    )


@pytest.mark.parametrize(
    ("value", "runs"),
    [
        ("noindex", [(None, "noindex")]),
        ("", [(None, "")]),
        ("max-snippet: 20, noindex", [(None, "max-snippet: 20, noindex")]),
        ("googlebot: max-snippet: 20, noindex", [("googlebot", "max-snippet: 20, noindex")]),
        ("a: noindex, b: nofollow", [("a", "noindex"), ("b", "nofollow")]),
    ],
)
def test_agent_runs(value: str, runs: list[tuple[str | None, str]]) -> None:
    assert agent_runs(value) == runs


def test_a_date_followed_by_a_rule_keeps_its_zone() -> None:
    said = header_robots(["unavailable_after: 25 Jun 2010 15:00:00 PST, nofollow"], AGENTS)
    assert said == RobotsRules(unavailable_after="25 Jun 2010 15:00:00 PST", nofollow=True)
