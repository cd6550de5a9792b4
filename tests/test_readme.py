"""The README tells the truth: its table of codes (title and fix for each) and its test command."""

from __future__ import annotations

from pathlib import Path

from auditor.codes import Code, codes_markdown

ROOT = Path(__file__).parent.parent


def test_codes_table_is_the_catalog() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("<!-- codes:start -->\n", 1)[1].split("<!-- codes:end -->", 1)[0]
    assert table == codes_markdown()


def test_ci_runs_the_readme_test_command() -> None:
    command = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert command.startswith("python3 -m venv .venv && ")
    assert f"\n{command}\n" in (ROOT / "README.md").read_text()


def test_every_code_says_what_is_wrong_and_how_to_fix_it() -> None:
    for code in Code:
        info = code.info
        assert info.title, code
        assert info.fix, code
        assert "\n" not in info.title + info.fix, code  # one line each: table cells, HTML rows
        assert info.fix[0].isupper(), code
        assert not info.fix.endswith("."), code
