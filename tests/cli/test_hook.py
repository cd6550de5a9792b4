"""The pre-commit hook: one line per finding, the command's exit code, nothing left behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.cli import hook
from auditor.cli.main import main
from auditor.demo.documents import url, urlset
from auditor.errors import ExitCode

ROOT = Path(__file__).parent.parent.parent
BROKEN = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    "<url><loc>https://example.com/b1</loc><lastmod>2020-13-01</lastmod></url>\n"
    "<url><loc>https://example.com/b1</loc></url>\n"
    "<url><loc>ftp://example.com/b2</loc><priority>2</priority></url>\n"
    "<url><loc>https://example.com/b3</loc>\n"  # never closed: xml.malformed
    "</urlset>\n"
)


def write_sitemaps(folder: Path) -> tuple[Path, Path]:
    good = folder / "sitemap.xml"
    good.write_text(urlset([url("https://example.com/g1"), url("https://example.com/g2")]))
    broken = folder / "sitemap-broken.xml"
    broken.write_text(BROKEN)
    return good, broken


def finding_count(sitemap: Path, tmp_path: Path) -> int:
    """The findings the command's JSON report keeps for `sitemap`."""
    report_path = tmp_path / "count.json"
    main(["--no-check", "--quiet", "--json", str(report_path), str(sitemap)])
    report = json.loads(report_path.read_text())
    report_path.unlink()
    (tmp_path / "count.html").unlink()
    return sum(len(s["findings"]) for s in report["sitemaps"]) + sum(
        len(u["findings"]) for u in report["urls"]
    )


def test_one_line_per_finding_and_the_commands_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    good, broken = write_sitemaps(tmp_path)
    expected = finding_count(broken, tmp_path)
    capsys.readouterr()
    assert hook.main([good.name]) == ExitCode.OK
    assert capsys.readouterr().out == ""
    assert hook.main([good.name, broken.name]) == ExitCode.FINDINGS
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == expected == 5
    assert all(line.startswith(f"{broken.name}:") for line in lines)
    assert hook.main(["--fail-on", "never", broken.name]) == ExitCode.OK  # options come first
    assert len(capsys.readouterr().out.splitlines()) == expected
    assert sorted(path.name for path in tmp_path.iterdir()) == [broken.name, good.name]


def test_a_file_that_is_gone_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert hook.main([str(tmp_path / "missing-sitemap.xml")]) == ExitCode.USAGE
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 1


def git(folder: Path, *args: str) -> None:
    identity = ["-c", "user.name=test", "-c", "user.email=test@example.invalid"]
    subprocess.run(["git", *identity, *args], cwd=folder, check=True, capture_output=True)


def hook_repository(folder: Path) -> Path:
    """This project as a hook repository: what pre-commit installs from, committed."""
    folder.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy(ROOT / name, folder / name)
    ignored = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "auditor", folder / "auditor", ignore=ignored)
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "hooks")
    return folder


def try_repo(repository: Path, hooks: Path, home: Path) -> tuple[int, list[str]]:
    pre_commit = Path(sys.executable).parent / "pre-commit"
    done = subprocess.run(
        [str(pre_commit), "try-repo", str(hooks), "sitemap-audit", "--all-files", "--color=never"],
        cwd=repository,
        env={**os.environ, "PRE_COMMIT_HOME": str(home)},
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout.splitlines()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
def test_pre_commit_runs_the_hook_on_the_sitemaps_of_a_repository(tmp_path: Path) -> None:
    hooks = hook_repository(tmp_path / "hooks")
    repository = tmp_path / "site"
    repository.mkdir()
    git(repository, "init", "-q")
    good, broken = write_sitemaps(repository)
    (repository / "feed.xml").write_text("<not a sitemap")  # not a sitemap's name: not looked at
    expected = finding_count(broken, tmp_path)
    broken_text = broken.read_text()
    broken.unlink()
    git(repository, "add", ".")
    home = tmp_path / "pre-commit-home"  # the hook's environment, installed once for both runs

    code, out = try_repo(repository, hooks, home)
    assert code == 0, out
    assert not [line for line in out if line.startswith(("sitemap.xml:", "feed.xml:"))]

    broken.write_text(broken_text)
    git(repository, "add", ".")
    code, out = try_repo(repository, hooks, home)
    assert code == ExitCode.FINDINGS, out
    assert len([line for line in out if line.startswith(f"{broken.name}:")]) == expected
    assert not [line for line in out if line.startswith(("sitemap.xml:", "feed.xml:"))]
    assert sorted(path.name for path in repository.iterdir()) == [
        ".git",
        "feed.xml",
        broken.name,
        good.name,
    ]  # no report left in the repository
