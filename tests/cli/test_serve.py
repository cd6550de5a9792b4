"""A pull request's docs build, checked as it will be served: `--serve DIR` with the site's URL.

Real Hugo and MkDocs builds of a small site whose sitemap names production
(https://docs.example.com/): every request goes to the folder served on loopback, none leaves
the machine; the build passes, then a page removed from it fails the run, named in the job
summary. The Action's `serve` input, and the usage errors.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.cli.action import _command_line
from auditor.cli.main import main
from auditor.errors import ExitCode
from tests.cli.test_main import one_line_error
from tests.sitemap.test_generators import _require_hugo

SITE = "https://docs.example.com/"
PAGE = "<!doctype html><html><head><title>{{ .Title }}</title>"
PAGE += '<link rel="canonical" href="{{ .Permalink }}"></head><body>{{ .Content }}</body></html>'


def hugo_build(folder: Path) -> Path:
    """A Hugo site for production's URL, built into `folder/public`."""
    (folder / "layouts" / "_default").mkdir(parents=True)
    (folder / "content" / "posts").mkdir(parents=True)
    (folder / "config.toml").write_text(
        f'baseURL = "{SITE}"\ntitle = "Docs"\ndisableKinds = ["taxonomy", "term", "RSS"]\n'
    )
    for name in ("_default/single.html", "_default/list.html", "index.html"):
        (folder / "layouts" / name).write_text(PAGE)
    (folder / "layouts" / "404.html").write_text("<!doctype html><title>Not found</title>")
    (folder / "content" / "_index.md").write_text("---\ntitle: Home\n---\n")
    (folder / "content" / "about.md").write_text("---\ntitle: About\n---\nAbout us.\n")
    (folder / "content" / "posts" / "hello.md").write_text("---\ntitle: Hello\n---\nHi.\n")
    hugo = shutil.which("hugo")
    assert hugo is not None
    subprocess.run([hugo, "--quiet", "--source", str(folder)], check=True, timeout=120)
    return folder / "public"


def mkdocs_build(folder: Path) -> Path:
    """An MkDocs site for production's URL, built into `folder/site`."""
    (folder / "docs").mkdir(parents=True)
    (folder / "docs" / "index.md").write_text("# Home\n\nWelcome.\n")
    (folder / "docs" / "about.md").write_text("# About\n\nAbout us.\n")
    (folder / "mkdocs.yml").write_text(
        f"site_name: Docs\nsite_url: {SITE}\nnav:\n  - index.md\n  - about.md\n"
    )
    command = [sys.executable, "-m", "mkdocs", "build", "--quiet", "--strict"]
    subprocess.run([*command, "-f", str(folder / "mkdocs.yml")], check=True, timeout=120)
    return folder / "site"


def audit_served(folder: Path, build: Path) -> tuple[int, dict[str, object], str]:
    """The command, as a pull request's job runs it; its exit code, report and summary."""
    argv = ["--serve", str(build), SITE, "-q", "--no-progress", "--timeout", "5"]
    argv += ["--json", "r.json", "--markdown", "s.md", "--junit", "j.xml"]
    code = main(argv)
    report = json.loads((folder / "r.json").read_text())
    return code, report, (folder / "s.md").read_text()


def check_the_build(folder: Path, build: Path) -> None:
    """A clean build passes with every listed URL answered from it; one page removed fails."""
    code, report, _ = audit_served(folder, build)
    assert code == ExitCode.OK
    urls = report["urls"]
    assert isinstance(urls, list)
    assert len(urls) >= 2
    for entry in urls:
        assert entry["loc"].startswith(SITE)
        assert entry["status"] == 200, entry
        assert entry["remapped"].startswith("http://127.0.0.1:")  # served from the folder
    summary = report["summary"]
    assert isinstance(summary, dict)
    assert summary["by_severity"]["error"] == 0
    # A page the pull request lost: a 404 (the generator's own page), named in the summary.
    shutil.rmtree(build / "about")
    code, report, markdown = audit_served(folder, build)
    assert code == ExitCode.FINDINGS
    broken = [e for e in report["urls"] if e["status"] == 404]  # type: ignore[attr-defined]
    assert [e["loc"] for e in broken] == [f"{SITE}about/"]
    assert [f["code"] for f in broken[0]["findings"]] == ["http.not_found"]
    assert f"- `{SITE}about/` — 404" in markdown


@pytest.mark.slow
def test_a_hugo_build_is_checked_as_it_will_be_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _require_hugo()
    build = hugo_build(tmp_path / "hugo")
    monkeypatch.chdir(tmp_path)
    check_the_build(tmp_path, build)


@pytest.mark.slow
def test_an_mkdocs_build_is_checked_as_it_will_be_served(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = mkdocs_build(tmp_path / "mkdocs")
    monkeypatch.chdir(tmp_path)
    check_the_build(tmp_path, build)


@pytest.mark.parametrize(
    "argv",
    [
        ["--serve", "{folder}", "{folder}/sitemap.xml"],  # a file: no site URL to map
        ["--serve", "{folder}/sitemap.xml", SITE],  # not a folder
        ["--serve", "{folder}", "--demo"],
        ["--remap", "only-a-pattern", SITE],
        ["--remap", "(unclosed http://127.0.0.1/", SITE],
    ],
)
def test_serve_and_remap_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    (tmp_path / "sitemap.xml").write_text("<urlset/>")
    given = [word.format(folder=tmp_path) for word in argv]
    assert main(["--no-check", *given]) == ExitCode.USAGE
    one_line_error(capsys)


def test_the_actions_serve_input_serves_the_folder() -> None:
    env = {"INPUT_TARGETS": SITE, "INPUT_ARGS": "--fail-on warning", "INPUT_SERVE": "public"}
    assert _command_line(env) == [SITE, "--fail-on", "warning", "--serve", "public"]
    assert "--serve" not in _command_line({"INPUT_TARGETS": SITE, "INPUT_SERVE": " "})
