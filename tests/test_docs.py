"""The documentation tells the truth: its generated reference covers every code, option and
report field; its examples run; the site builds strictly, offline."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from auditor.cli.main import main
from auditor.cli.parser import build_parser, parse_command
from auditor.codes import Code
from auditor.config import AuditConfig
from auditor.errors import ExitCode
from auditor.fleet.outputs import fleet_schema
from auditor.flow.registry import WINGS
from auditor.options.row import said_value
from auditor.options.table import BY_DEST, OPTIONS
from auditor.report.schema import report_schema
from docs.hooks import (
    GENERATORS,
    MARKER,
    cell,
    code_anchor,
    codes_reference,
    option_anchor,
    option_help,
    options_reference,
    schema_reference,
)
from tests.wings.baseline.test_recipe import RECIPE

ROOT = Path(__file__).parent.parent
DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text("utf-8")


def section(text: str, heading: str) -> str:
    """The text under a `## heading` line, up to the next heading of that level."""
    return text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def test_every_code_says_what_is_wrong_and_how_to_fix_it() -> None:
    for code in Code:
        info = code.info
        assert info.title, code
        assert info.fix, code
        assert "\n" not in info.title + info.fix, code  # one line each: table cells, HTML rows
        assert info.fix[0].isupper(), code
        assert not info.fix.endswith("."), code


def test_every_code_has_its_row_in_the_codes_reference() -> None:
    rows = {line.split(" | ", 1)[0]: line for line in codes_reference().splitlines()}
    for code in Code:
        anchor = code_anchor(code)
        row = rows[f"| [`{code.value}`](#{anchor}){{#{anchor}}}"]
        info = code.info
        assert f" {info.severity.value} " in row, code
        assert f"| {cell(info.title)} |" in row, code
        assert f"| {cell(info.fix)} |" in row, code
        if info.search_console:
            assert f"| {cell(info.search_console)} |" in row, code


def test_every_option_has_help_and_its_row_in_the_options_reference() -> None:
    reference = options_reference()
    for option in OPTIONS:
        assert option.help.strip(), option.dest
        assert f"{{#{option_anchor(option)}}}" in reference, option.dest
        assert cell(option_help(option)) in reference, option.dest
    # every flag of the parser is an option of the table (or argparse's own --help)
    parsed = {action.dest for action in build_parser()._actions}
    assert parsed == {option.dest for option in OPTIONS} | {"help"}
    assert "{#opt-help}" in reference


def test_the_options_page_says_no_machine_value() -> None:
    """A default that depends on the machine (--workers: its cores) is said in words."""
    assert "%(default)" in BY_DEST["workers"].help
    row = next(line for line in options_reference().splitlines() if "{#opt-workers}" in line)
    assert not re.search(r"\d", row.split("|", 3)[3])  # no number of cores in default or help


def test_the_site_runs_no_code_of_the_benchmarks() -> None:
    """The docs build reads the benchmark journal's results as data; it imports none of it."""
    hooks = (ROOT / "docs" / "hooks.py").read_text()
    tree = ast.parse(hooks)
    named = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    named |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    scripts = {path.stem for path in (ROOT / "benchmarks").glob("*.py")} | {"benchmarks"}
    assert {name.split(".")[0] for name in named} & scripts == set()
    assert "sys.path" not in hooks


def test_the_options_page_shows_every_default() -> None:
    """A default is in its row's default cell, the field's for an option of a field."""
    rows = {
        line.split("{#", 1)[1].split("}", 1)[0]: line
        for line in options_reference().splitlines()
        if "{#opt-" in line
    }
    for option in OPTIONS:
        default = option.shown_default()
        if option.default_words is not None or default in (None, False, [], 0):
            continue
        cell = rows[option_anchor(option)].split(" | ")[2]
        assert cell == f"`{said_value(default)}`", option.flag


def schema_paths(
    node: Mapping[str, Any], defs: Mapping[str, Any], path: str = ""
) -> Iterator[tuple[str, str]]:
    """(where, field path) of every property of a schema, read independently of the hooks."""
    for name, field in node.get("properties", {}).items():
        yield path, f"{path}{name}"
        inner = field.get("items", field) if field.get("type") == "array" else field
        if "$ref" not in inner and "properties" in inner:
            yield from schema_paths(
                inner, defs, f"{path}{name}{'[].' if inner is not field else '.'}"
            )


@pytest.mark.parametrize("schema", [report_schema(), fleet_schema()], ids=["report", "fleet"])
def test_every_report_field_is_in_the_reference(schema: dict[str, Any]) -> None:
    reference = schema_reference(schema, "x")
    defs = schema.get("$defs", {})
    fields = [path for _, path in schema_paths(schema, defs)]
    for name, node in defs.items():
        if node.get("type") == "object":
            assert f"{{#x-{name}}}" in reference, name
            fields += [path for _, path in schema_paths(node, defs)]
    assert len(fields) > 20
    for path in fields:
        assert f"| `{path}` |" in reference, path


def test_every_marker_of_a_page_is_known_and_every_generator_used() -> None:
    used = {name for path in DOCS.rglob("*.md") for name in MARKER.findall(path.read_text())}
    assert used == set(GENERATORS)


def example_config(name: str, folder: Path) -> AuditConfig:
    """The first TOML example of a page, read as `--config` reads it from `folder`."""
    path = folder / "audit.toml"
    path.write_text(page(name).split("```toml\n", 1)[1].split("```", 1)[0])
    _, config = parse_command(["--config", str(path)])
    assert config is not None
    return config


def test_the_example_config_is_a_valid_config(tmp_path: Path) -> None:
    config = example_config("how-to/monitoring.md", tmp_path)
    assert [target.url for target in config.targets] == ["https://www.example.com/"]
    assert (config.per_host, config.rate, config.headers) == (4, 10.0, (("X-Audit", "nightly"),))
    assert config.state is not None


def test_the_config_reference_example_is_a_valid_config(tmp_path: Path) -> None:
    config = example_config("reference/config.md", tmp_path)
    assert (config.per_host, config.fail_on.value) == (4, "warning")
    assert config.out == tmp_path / "reports"  # relative to the file's folder


def test_scheduled_jobs_use_real_flags() -> None:
    """Every `--flag` in the cron, systemd and CI examples is one the command knows."""
    blocks = re.findall(r"```(?:sh|ini|yaml)\n(.*?)```", page("how-to/monitoring.md"), re.DOTALL)
    known = {option for action in build_parser()._actions for option in action.option_strings}
    used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", "".join(blocks)))
    assert {"--config", "--baseline", "--json"} <= used
    assert used <= known, used - known


def test_the_nightly_recipe_is_the_one_the_tests_run_night_after_night() -> None:
    """tests/wings/baseline/test_recipe.py runs RECIPE; the cron line is it, with its config."""
    cron = page("how-to/monitoring.md").split("```sh\n# m h dom mon dow  command\n", 1)[1]
    line = cron.split("\n", 1)[0].split("cd /var/lib/sitemap-audit && ", 1)[1]
    assert line.replace("/etc/sitemap-audit/example.toml", "audit.toml") == RECIPE


def test_the_layout_names_every_module_in_its_room() -> None:
    """The module map names each module, in the bullet of the room that holds it."""
    text = page("explanation/design.md")
    layout = text.split("\n## Where each part lives {#layout}\n", 1)[1].split("\n## ", 1)[0]
    bullets = ["- " + bullet for bullet in layout.split("\n- ")[1:]]
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
            assert "root" in layout
            continue
        room = parts[0] if len(parts) > 1 or (package / parts[0]).is_dir() else ""
        where = rooms.get(room, layout) if room else layout
        assert f"`{parts[-1]}`" in where or f"`{parts[-1]}/`" in where, (parts, room)


def test_the_design_pages_picture_draws_every_wing_in_its_order() -> None:
    """The picture of the core and its wings is the registry's: each wing, in the fold's order."""
    text = page("explanation/design.md")
    section = text.split("\n## Wings {#wings}\n", 1)[1].split("\n## ", 1)[0]
    picture = section.split("```text\n", 1)[1].split("```", 1)[0]
    row = next(line for line in picture.splitlines() if line.strip().startswith("│ crawl"))
    drawn = [cell.strip() for cell in row.split("│")[1:-1]]
    assert drawn == [feature.name for feature in WINGS]
    packages = sorted(
        path.name
        for path in (ROOT / "auditor" / "wings").iterdir()
        if path.is_dir() and not path.name.startswith("_")
    )
    assert sorted(drawn) == packages


def test_the_tutorials_sitemap_gives_the_findings_it_shows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = section(page("tutorial.md"), "## 4. Fix the first findings")
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(text.split("```xml\n", 1)[1].split("```", 1)[0])
    shown = set(re.findall(r"^  error +([a-z]+\.[a-z_]+) ", text, re.MULTILINE))
    report = tmp_path / "r.json"
    argv = ["--no-check", "--workers", "1", "--quiet", "--json", str(report), str(sitemap)]
    assert main(argv) == ExitCode.FINDINGS
    capsys.readouterr()
    found = json.loads(report.read_text())["summary"]["by_code"]
    assert len(shown) == 5
    assert set(found) == shown


@pytest.mark.slow
def test_the_site_builds_strictly_offline(tmp_path: Path) -> None:
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    codes = (site / "reference" / "codes" / "index.html").read_text()
    assert all(f'id="{code_anchor(code)}"' in codes for code in Code)
    options = (site / "reference" / "options" / "index.html").read_text()
    assert all(f'id="{option_anchor(option)}"' in options for option in OPTIONS)
    api = (site / "reference" / "api" / "index.html").read_text()
    assert 'id="auditor.api.runs.run"' in api
