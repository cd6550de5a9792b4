"""The fleet file and the fleet's options: each site's configuration, and one-line usage errors."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.cli.fleet_file import fleet_plan, line_entries, toml_entries
from auditor.cli.main import main
from auditor.cli.parser import build_parser, parse_command
from auditor.errors import ConfigFileError, ExitCode
from auditor.fleet.outputs import fleet_schema
from auditor.options.row import Place
from auditor.options.table import given_at


def one_line_error(captured: pytest.CaptureFixture[str]) -> str:
    err = captured.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    return err


def test_lines_one_target_each_with_comments() -> None:
    text = "# the shops\n\nhttps://a.example/  # the main one\n  b.example\n#c.example\n"
    entries = line_entries(text, Path("f.txt"))
    assert [(e.line, e.targets) for e in entries] == [
        (3, ("https://a.example/",)),
        (4, ("b.example",)),
    ]


def test_a_line_of_two_targets_is_named() -> None:
    with pytest.raises(ConfigFileError, match="line 2"):
        line_entries("https://a.example/\nhttps://b.example/ https://c.example/\n", Path("f"))


def test_toml_sites_with_names_targets_and_options() -> None:
    text = (
        "[[site]]\ntarget = 'https://a.example/'\n\n"
        "[[site]]\nname = 'b'\ntargets = ['https://b.example/', 'https://b.example/x.xml']\n"
        "per-host = 2\n"
    )
    entries = toml_entries(text, Path("f.toml"))
    assert [(e.line, e.name, e.targets) for e in entries] == [
        (1, None, ("https://a.example/",)),
        (4, "b", ("https://b.example/", "https://b.example/x.xml")),
    ]
    assert entries[1].options == {"per-host": 2}


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[[site]]\nname = 'a'\n", 1),  # no target
        ("[[site]]\ntarget = 'https://a.example/'\ntargets = ['https://b.example/']\n", 1),
        ("[[site]]\ntarget = 'https://a.example/'\n\n[[site]]\ntarget = 3\n", 4),
        ("[[site]]\ntarget = 'a.example'\n\n[[site]]\nname = ''\ntarget = 'x.example'\n", 4),
    ],
)
def test_bad_site_tables_name_their_line(text: str, line: int) -> None:
    with pytest.raises(ConfigFileError, match=f"line {line}:"):
        toml_entries(text, Path("f.toml"))


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text",
    [
        "[[site]]\ntarget = 'https://a.example/'\nconcurency = 3\n",  # unknown key
        "[[site]]\ntarget = 'https://a.example/'\nper-host = 'two'\n",  # wrong type
        "[[site]]\ntarget = 'https://a.example/'\nout = 'elsewhere'\n",  # the fleet's key
        "[[site]]\ntarget = 'https://a.example/'\nno-check = true\nrate = 2.0\n",  # conflict
        "[[site]]\ntarget = 'not a target'\n",
        (
            "[[site]]\nname = 'a'\ntarget = 'https://a.example/'\n\n"
            "[[site]]\nname = 'a'\ntarget = 'https://b.example/'\n"
        ),  # a name twice
        (
            "[[site]]\nname = 'a b'\ntarget = 'https://a.example/'\n\n"
            "[[site]]\nname = 'a-b'\ntarget = 'https://b.example/'\n"
        ),  # one folder for two
        "site = 3\n",
        "[shop]\ntarget = 'https://a.example/'\n",
        "not = [toml\n",
        "# nothing but a comment\n",
    ],
)
def test_bad_fleet_files_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    fleet = write(tmp_path / "sites.toml", text)
    assert main(["--fleet", str(fleet), "--out", str(tmp_path / "out")]) == ExitCode.USAGE
    one_line_error(capsys)
    assert not (tmp_path / "out").exists()  # nothing ran, nothing was written


@pytest.mark.parametrize(
    "extra",
    [
        ["https://a.example/"],  # a TARGET beside --fleet
        ["--demo"],
        ["--json", "-"],
        ["--csv", "tables"],
        ["--fleet-workers", "0"],
        ["--fleet-concurrency", "0"],
        ["--scheduler", "tcp://127.0.0.1:8786", "--fleet-workers", "2"],
        ["--baseline", "missing.json"],
    ],
)
def test_fleet_options_that_cannot_work_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    fleet = write(tmp_path / "sites.txt", "https://a.example/\n")
    assert main(["--fleet", str(fleet), *extra]) == ExitCode.USAGE
    one_line_error(capsys)


@pytest.mark.parametrize(
    "flag", [["--scheduler", "tcp://127.0.0.1:8786"], ["--fleet-workers", "2"]]
)
def test_cluster_options_need_a_fleet(capsys: pytest.CaptureFixture[str], flag: list[str]) -> None:
    assert main([*flag, "https://a.example/"]) == ExitCode.USAGE
    one_line_error(capsys)


def test_a_baseline_that_is_a_site_report_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fleet = write(tmp_path / "sites.txt", "https://a.example/\n")
    report = write(tmp_path / "report.json", json.dumps({"schema_version": 1, "urls": []}))
    assert main(["--fleet", str(fleet), "--baseline", str(report)]) == ExitCode.USAGE
    one_line_error(capsys)


def test_the_site_options_win_over_the_command_line(tmp_path: Path) -> None:
    sitemap = write(tmp_path / "local.xml", "<urlset/>")
    fleet = write(
        tmp_path / "sites.toml",
        "[[site]]\nname = 'a'\ntarget = 'https://a.example/'\nper-host = 2\n"
        "header = ['X-Site: a']\n\n"
        "[[site]]\ntarget = 'https://b.example/'\nworkers = 3\n\n"
        "[[site]]\ntarget = 'local.xml'\n\n"  # beside the fleet file
        "[[site]]\ntarget = 'https://b.example/other.xml'\n",
    )
    argv = ["--fleet", str(fleet), "--per-host", "5", "--header", "X-All: 1", "--out", "rel"]
    argv += ["--junit", str(tmp_path / "j.xml"), "--state", str(tmp_path / "states")]
    args, config = parse_command(argv)
    assert config is None
    plan = fleet_plan(args, argv)
    a, b, local, other = plan.sites
    assert [site.name for site in plan.sites] == ["a", "b.example", "local", "b.example-2"]
    assert (a.config.per_host, b.config.per_host) == (2, 5)
    assert a.config.headers == (("X-Site", "a"),)  # a repeatable option given replaces the list
    assert b.config.headers == (("X-All", "1"),)
    assert (a.config.workers, b.config.workers) == (1, 3)  # in a fleet, one process a site
    assert local.config.targets[0].path == sitemap.absolute()
    folders = {site.config.out for site in plan.sites}
    assert len(folders) == 4
    assert all(
        folder.is_absolute() and folder.parent == Path("rel").absolute() for folder in folders
    )
    assert {site.config.json for site in plan.sites} == {None}
    assert a.config.junit == a.config.out / "junit.xml"
    assert a.config.state == (tmp_path / "states" / "a.state").absolute()
    assert other.config.state != b.config.state


def test_workers_given_on_the_command_line_reach_every_site(tmp_path: Path) -> None:
    fleet = write(tmp_path / "sites.txt", "https://a.example/\nhttps://b.example/\n")
    argv = ["--fleet", str(fleet), "--workers", "2"]
    args, _ = parse_command(argv)
    assert {site.config.workers for site in fleet_plan(args, argv).sites} == {2}


def test_no_site_may_set_what_the_fleet_names() -> None:
    per_site = given_at(Place.SITE)
    assert per_site <= {a.dest for a in build_parser()._actions}
    assert {"out", "json", "html", "metrics", "junit", "state", "baseline"}.isdisjoint(per_site)


def test_print_schema_fleet_prints_the_shipped_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--print-schema", "fleet"]) == ExitCode.OK
    assert json.loads(capsys.readouterr().out) == fleet_schema()
    assert main(["--print-schema"]) == ExitCode.OK
    assert json.loads(capsys.readouterr().out)["title"] == "sitemap-auditor report"


def test_without_the_fleet_extra_it_is_a_usage_error(tmp_path: Path) -> None:
    """Dask made unimportable (as when the extra is not installed): exit 2, one line."""
    fleet = write(tmp_path / "sites.txt", "https://a.example/\n")
    code = (
        "import sys; sys.modules['distributed'] = None\n"
        "from auditor.cli.main import main\n"
        f"sys.exit(main(['--fleet', {str(fleet)!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == ExitCode.USAGE
    assert len(done.stderr.strip().splitlines()) == 1
    assert "sitemap-auditor[fleet]" in done.stderr  # the extra is named: what to install


def fleets_section() -> str:
    """The how-to guide of fleets, whose commands and files must work as shown."""
    return (Path(__file__).parent.parent.parent / "docs" / "how-to" / "fleet.md").read_text()


def test_the_documented_fleet_commands_use_real_flags() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", fleets_section(), re.DOTALL)
    lines = [line for block in blocks for line in block.splitlines() if "sitemap-audit" in line]
    assert len(lines) >= 4  # both ways: a LocalCluster, and --scheduler
    known = {option for action in build_parser()._actions for option in action.option_strings}
    used = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", "\n".join(lines)))
    assert {"--fleet", "--scheduler", "--fleet-workers"} <= used <= known, used - known


def test_the_documented_fleet_files_are_valid(tmp_path: Path) -> None:
    section = fleets_section()
    toml = section.split("```toml\n", 1)[1].split("```", 1)[0]
    lines = section.split("```\n# sites.txt\n", 1)[1].split("```", 1)[0]
    for name, text in (("sites.toml", toml), ("sites.txt", lines)):
        fleet = write(tmp_path / name, text)
        argv = ["--fleet", str(fleet), "--out", str(tmp_path / "out")]
        args, _ = parse_command(argv)
        sites = fleet_plan(args, argv).sites
        assert len(sites) in {2, 3}, name
    shop = fleet_plan(*_parsed(tmp_path / "sites.toml", tmp_path)).sites[0]
    assert (shop.name, shop.config.rate, shop.config.headers) == (
        "shop",
        5.0,
        (("X-Audit", "nightly"),),
    )


def _parsed(fleet: Path, tmp_path: Path) -> tuple[argparse.Namespace, list[str]]:
    argv = ["--fleet", str(fleet), "--out", str(tmp_path / "out")]
    return parse_command(argv)[0], argv


def test_a_config_file_may_name_the_fleet(tmp_path: Path) -> None:
    write(tmp_path / "sites.txt", "https://a.example/\n")
    config = write(tmp_path / "nightly.toml", "fleet = 'sites.txt'\nfleet-workers = 3\nrate = 2\n")
    argv = ["--config", str(config)]
    args, built = parse_command(argv)
    assert built is None
    plan = fleet_plan(args, argv)
    assert plan.source == tmp_path / "sites.txt"  # relative to the config file's folder
    assert plan.cluster.workers == 3
    assert plan.sites[0].config.rate == 2.0


def test_each_site_has_its_own_history(tmp_path: Path) -> None:
    fleet = write(
        tmp_path / "sites.toml",
        "[[site]]\nname = 'a'\ntarget = 'https://a.example/'\n\n"
        "[[site]]\nname = 'b'\ntarget = 'https://b.example/'\nhistory = 'b-own.history'\n\n"
        "[[site]]\ntarget = 'https://c.example/'\nbudget = 10\n",
    )
    argv = ["--fleet", str(fleet), "--history", str(tmp_path / "histories"), "--budget", "99"]
    args, _ = parse_command(argv)
    a, b, c = fleet_plan(args, argv).sites
    assert a.config.history == (tmp_path / "histories" / "a.history").absolute()
    assert b.config.history == tmp_path / "b-own.history"  # its own, beside the fleet file
    assert c.config.history == (tmp_path / "histories" / "c.example.history").absolute()
    assert (a.config.budget, c.config.budget) == (99, 10)


def test_two_sites_sharing_a_history_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fleet = write(
        tmp_path / "sites.toml",
        "[[site]]\ntarget = 'https://a.example/'\nhistory = 'one.history'\n\n"
        "[[site]]\ntarget = 'https://b.example/'\nhistory = 'one.history'\n",
    )
    assert main(["--fleet", str(fleet), "--out", str(tmp_path)]) == ExitCode.USAGE
    one_line_error(capsys)


def test_a_fleet_history_is_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fleet = write(tmp_path / "sites.txt", "https://a.example/\n")
    history = write(tmp_path / "one.history", "")
    assert main(["--fleet", str(fleet), "--history", str(history)]) == ExitCode.USAGE
    one_line_error(capsys)


def test_a_site_with_a_budget_and_no_history_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fleet = write(tmp_path / "sites.toml", "[[site]]\ntarget = 'https://a.example/'\nbudget = 5\n")
    assert main(["--fleet", str(fleet), "--out", str(tmp_path)]) == ExitCode.USAGE
    assert "line 1" in one_line_error(capsys)


def test_each_site_crawls_within_its_own_bounds(tmp_path: Path) -> None:
    fleet = write(
        tmp_path / "sites.toml",
        "[[site]]\ntarget = 'https://a.example/'\ncrawl = true\ncrawl-max = 500\n"
        "crawl-depth = 4\ncrawl-host = ['shop.a.example']\ndeep-clicks = 2\n\n"
        "[[site]]\ntarget = 'https://b.example/'\n",
    )
    argv = ["--fleet", str(fleet), "--crawl-max", "9000"]
    args, _ = parse_command(argv)
    a, b = fleet_plan(args, argv).sites
    assert (a.config.crawl, a.config.crawl_max, a.config.crawl_depth) == (True, 500, 4)
    assert (a.config.crawl_hosts, a.config.deep_clicks) == (("shop.a.example",), 2)
    assert (b.config.crawl, b.config.crawl_max) == (False, 9000)


def test_a_site_names_its_own_access_logs(tmp_path: Path) -> None:
    fleet = write(
        tmp_path / "sites.toml",
        "[[site]]\ntarget = 'https://a.example/'\naccess-log = ['logs/a/', 'a.log.gz']\n"
        "log-days = 7\n\n"
        "[[site]]\ntarget = 'https://b.example/'\n",
    )
    argv = ["--fleet", str(fleet)]
    args, _ = parse_command(argv)
    a, b = fleet_plan(args, argv).sites
    assert a.config.access_logs == (tmp_path / "logs/a", tmp_path / "a.log.gz")
    assert (a.config.log_days, b.config.access_logs, b.config.log_days) == (7, (), 30)
