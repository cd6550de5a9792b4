"""`--config audit.toml`: every long option is a key, the command line wins, bad keys exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from auditor.cli.main import main
from auditor.cli.parser import build_parser, parse_command
from auditor.config import FailOn, Method
from auditor.demo.documents import url, urlset
from auditor.errors import ExitCode


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_every_long_option_is_a_key(tmp_path: Path) -> None:
    """Keys come from the parser itself: one source of truth with the flags."""
    config = write(
        tmp_path / "audit.toml",
        """
        targets = ["https://example.com/"]
        concurrency = 7
        per-host = 3
        timeout = 4
        method = "get"
        header = ["X-Token: abc"]
        include = ["/blog/"]
        fail_on = "warning"
        allow-private = true
        json = "out/r.json"
        state = "audit.state"
        """,
    )
    args, built = parse_command(["--config", str(config)])
    assert built is not None
    assert (built.concurrency, built.per_host, built.timeout_s) == (7, 3, 4.0)
    assert built.method is Method.GET
    assert built.fail_on is FailOn.WARNING
    assert built.headers == (("X-Token", "abc"),)
    assert built.include == ("/blog/",)
    assert built.allow_private
    assert built.json == tmp_path / "out" / "r.json"  # relative to the config file's folder
    assert built.state == tmp_path / "audit.state"
    assert built.targets[0].url == "https://example.com/"
    assert args.config == config


def test_command_line_wins(tmp_path: Path) -> None:
    config = write(
        tmp_path / "audit.toml",
        'targets = ["https://example.com/"]\nconcurrency = 7\ninclude = ["/a/"]\nquiet = true\n',
    )
    argv = ["--config", str(config), "--concurrency", "9", "--include", "/b/", "--verbose"]
    args, built = parse_command([*argv, "https://example.org/"])
    assert built is not None
    assert built.concurrency == 9
    assert built.include == ("/b/",)  # a repeatable flag given replaces the file's list
    assert built.targets[0].url == "https://example.org/"
    assert (args.quiet, args.verbose) == (False, True)


def test_no_key_without_a_long_option() -> None:
    parser = build_parser()
    longs = {
        s[2:] for action in parser._actions for s in action.option_strings if s.startswith("--")
    }
    assert {"per-host", "fail-on", "baseline", "metrics", "max-depth"} <= longs


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("concurency = 3", "concurency"),
        ("config = 'other.toml'", "config"),
        ("version = true", "version"),
        ("concurrency = '3'", "concurrency"),
        ("concurrency = 2.5", "concurrency"),
        ("concurrency = true", "concurrency"),
        ("timeout = 'soon'", "timeout"),
        ("no-check = 'yes'", "no-check"),
        ("header = 'X: y'", "header"),
        ("method = 'post'", "method"),
        ("json = 3", "json"),
    ],
)
def test_bad_keys_exit_2_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, key: str
) -> None:
    config = write(tmp_path / "audit.toml", text + "\n")
    assert main(["--config", str(config), "https://example.com/"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    assert repr(key) in err


@pytest.mark.parametrize("text", ["not = [toml", None])
def test_unreadable_or_invalid_file_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None
) -> None:
    config = tmp_path / "audit.toml"
    if text is not None:
        config.write_text(text)
    assert main(["--config", str(config), "https://example.com/"]) == ExitCode.USAGE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_a_run_from_a_config_file(tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(urlset([url("https://example.com/a")]))
    config = write(
        tmp_path / "audit.toml",
        f'targets = ["{sitemap}"]\nno-check = true\njson = "r.json"\nquiet = true\n',
    )
    assert main(["--config", str(config)]) == ExitCode.OK
    report = json.loads((tmp_path / "r.json").read_bytes())
    assert report["summary"]["urls"] == 1
