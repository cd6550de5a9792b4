"""The README is a front page that tells the truth: short, its test command the one CI runs,
its links and picture in the repository."""

from __future__ import annotations

import re
from pathlib import Path

from auditor.config import ranges_markdown

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
MAX_LINES = 150  # a front page: what it is, a picture, set-up, use, exit codes, links onward
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)\s]*)?\)")


def test_the_security_ranges_table_is_the_code() -> None:
    security = (ROOT / "SECURITY.md").read_text()
    table = security.split("<!-- ranges:start -->\n", 1)[1].split("<!-- ranges:end -->", 1)[0]
    assert table == ranges_markdown()


def test_ci_runs_the_readme_test_command() -> None:
    command = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert command.startswith("python3 -m venv .venv && ")
    assert f"\n{command}\n" in README.read_text()


def test_the_readme_is_a_front_page() -> None:
    assert len(README.read_text().splitlines()) <= MAX_LINES


def test_the_readme_links_and_picture_are_in_the_repository() -> None:
    targets = [t for t in LINK.findall(README.read_text()) if "://" not in t]
    assert any(target.endswith(".png") for target in targets)
    assert "docs/tutorial.md" in targets
    missing = [target for target in targets if not (ROOT / target).exists()]
    assert missing == []
