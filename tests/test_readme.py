"""The README tells the truth: its table of codes (title and fix for each) and its test command."""

from __future__ import annotations

import re
from pathlib import Path

from auditor.cli.options import build_parser, parse_command
from auditor.codes import Code, codes_markdown
from auditor.config import ranges_markdown

ROOT = Path(__file__).parent.parent


def test_codes_table_is_the_catalog() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme.split("<!-- codes:start -->\n", 1)[1].split("<!-- codes:end -->", 1)[0]
    assert table == codes_markdown()


def test_the_security_ranges_table_is_the_code() -> None:
    security = (ROOT / "SECURITY.md").read_text()
    table = security.split("<!-- ranges:start -->\n", 1)[1].split("<!-- ranges:end -->", 1)[0]
    assert table == ranges_markdown()


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


def test_the_example_config_is_a_valid_config(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    example = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "audit.toml"
    path.write_text(example)
    _, config = parse_command(["--config", str(path)])
    assert config is not None
    assert [target.url for target in config.targets] == ["https://www.example.com/"]
    assert (config.per_host, config.rate, config.headers) == (4, 10.0, (("X-Audit", "nightly"),))
    assert config.state is not None


def test_scheduled_jobs_use_real_flags() -> None:
    """Every `--flag` in the README's cron, systemd and CI examples is one the CLI knows."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Monitoring", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:sh|ini|yaml)\n(.*?)```", section, re.DOTALL)
    known = {option for action in build_parser()._actions for option in action.option_strings}
    used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", "".join(blocks)))
    assert used, "the section shows commands"
    assert used <= known, used - known


def test_the_layout_names_every_module_in_its_room() -> None:
    """Issue 15: the README's map names each module, in the bullet of the room that holds it."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Layout\n", 1)[1].split("\n## ", 1)[0]
    bullets = ["- " + bullet for bullet in section.split("\n- ")[1:]]
    rooms: dict[str, str] = {}
    for bullet in bullets:
        first = re.search(r"`([a-z_]+)/`", bullet.split(":", 1)[0])
        rooms[first.group(1) if first else ""] = bullet
    package = ROOT / "auditor"
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not parts:
            assert "root" in section
            continue
        room = parts[0] if len(parts) > 1 or (package / parts[0]).is_dir() else ""
        where = rooms.get(room, section) if room else section
        assert f"`{parts[-1]}`" in where or f"`{parts[-1]}/`" in where, (parts, room)
