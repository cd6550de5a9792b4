"""The GitHub Action's step (action.yml): the audit run as a GitHub Actions runner expects.

The runner hands the Action's inputs over as `INPUT_*` variables and reads the step's outputs
from the file `GITHUB_OUTPUT` names, its job summary (Markdown) from `GITHUB_STEP_SUMMARY`
(docs.github.com, "Workflow commands for GitHub Actions"). This module turns those into a
command line, runs it, and writes them back: the tests run it so, with no GitHub at all.

    INPUT_TARGETS       sites, robots.txt or sitemap URLs, or files (space- or line-separated)
    INPUT_ARGS          more options, as on a command line (`--fail-on warning --per-host 4`)
    INPUT_FAIL          "true": the step fails when the audit does (exit 1); usage errors (2)
                        and runs that did not finish or reached no target (3) fail it always
    INPUT_OUTPUT        the folder for the reports (default `sitemap-audit`)
    INPUT_JOB_SUMMARY   "true": the Markdown summary goes to the job's summary page
    INPUT_ARTIFACT      the name the Action uploads the reports under ("": not uploaded); the
                        summary then links to the run's artifacts, its URL made of the runner's
                        GITHUB_SERVER_URL, GITHUB_REPOSITORY and GITHUB_RUN_ID
    INPUT_SERVE         a built site's folder, served on loopback for the audit (`--serve`)

Outputs: `exit_code`, `verdict`, `json`, `html`, `markdown`, `junit`.
"""

from __future__ import annotations

import os
import secrets
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path

from auditor.cli.main import main as command
from auditor.errors import ExitCode, ReportReadError, UsageError
from auditor.files import open_input
from auditor.report.reader import ReportReader

PROG = "sitemap-audit-action"
_RUN_PAGE = ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID")
# What GitHub's job summary shows at most of one step (1 MiB); the Markdown is far shorter.
MAX_SUMMARY_BYTES = 1 << 20


def main(environ: Mapping[str, str] | None = None) -> int:
    """Run the step; the exit code the step ends with."""
    env = os.environ if environ is None else environ
    folder = Path(env.get("INPUT_OUTPUT") or "sitemap-audit")
    outputs = {
        "json": folder / "report.json",
        "html": folder / "report.html",
        "markdown": folder / "summary.md",
        "junit": folder / "junit.xml",
    }
    try:
        argv = _command_line(env)
    except UsageError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        _write_outputs(env, {"exit_code": str(int(ExitCode.USAGE))})
        return ExitCode.USAGE
    argv += ["--out", str(folder), "--no-progress", "--no-color"]
    argv += [f"--{name}={path}" for name, path in outputs.items()]
    before = {name: _identity(path) for name, path in outputs.items()}
    code = command(argv)
    # Only what this run wrote: a file left by an earlier run (a self-hosted runner, a cache)
    # is no result of this one. Every output is made new and renamed into place, so a file
    # this run wrote is another file than the one there before (auditor.files).
    written = {
        name: path for name, path in outputs.items() if _identity(path) not in (None, before[name])
    }
    values = {"exit_code": str(int(code))}
    values["verdict"] = _verdict(written["json"]) if "json" in written else ""
    values |= {name: str(path) for name, path in written.items()}
    _write_outputs(env, values)
    if _true(env.get("INPUT_JOB_SUMMARY", "true")) and "markdown" in written:
        _append_summary(env, written["markdown"])
    if code == ExitCode.FINDINGS and not _true(env.get("INPUT_FAIL", "true")):
        return ExitCode.OK
    return code


def _command_line(env: Mapping[str, str]) -> list[str]:
    """The targets and `args`, split as a POSIX shell splits words; UsageError if they cannot be."""
    targets = env.get("INPUT_TARGETS", "").split()
    if not targets:
        raise UsageError("the input 'targets' names no site")
    try:
        words = [*targets, *shlex.split(env.get("INPUT_ARGS", ""))]
    except ValueError as exc:  # "No closing quotation", "No escaped character"
        raise UsageError(f"the input 'args' cannot be split into words: {exc}") from None
    if serve := env.get("INPUT_SERVE", "").strip():
        words += ["--serve", serve]
    if (link := artifacts_url(env)) is not None:
        words += ["--reports-url", link]
    return words


def artifacts_url(env: Mapping[str, str]) -> str | None:
    """The run's page where its artifacts are listed, when the Action uploads the reports.

    docs.github.com, "Store and share data with workflow artifacts": a run's artifacts are on its
    summary page, `<server>/<owner>/<repo>/actions/runs/<run id>`.
    """
    if not env.get("INPUT_ARTIFACT", "").strip():
        return None
    parts = [env.get(name, "").strip() for name in _RUN_PAGE]
    if not all(parts):
        return None
    server, repository, run_id = parts
    return f"{server.rstrip('/')}/{repository}/actions/runs/{run_id}#artifacts"


def _identity(path: Path) -> tuple[int, int, int] | None:
    """Which file is at `path` (device, inode, change time), or None when none is."""
    try:
        found = path.stat()
    except OSError:
        return None
    return (found.st_dev, found.st_ino, found.st_ctime_ns)


def run() -> None:
    """Console-script entry point (and `python -m auditor.cli.action`)."""
    sys.exit(main())


def _true(text: str) -> bool:
    return text.strip().lower() in {"true", "1", "yes"}


def _verdict(report: Path) -> str:
    """The run's verdict line, read back from its report ("" when it cannot be)."""
    try:
        return ReportReader(report).decision().verdict.line
    except ReportReadError:
        return ""


def _write_outputs(env: Mapping[str, str], values: Mapping[str, str]) -> None:
    """Append `name<<DELIMITER ... DELIMITER` blocks: any value, newlines included, is safe."""
    path = env.get("GITHUB_OUTPUT")
    if not path:
        return
    lines: list[str] = []
    for name, value in values.items():
        delimiter = f"sitemap_audit_{secrets.token_hex(8)}"
        lines += [f"{name}<<{delimiter}", value, delimiter]
    with Path(path).open("a", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


def _append_summary(env: Mapping[str, str], markdown: Path) -> None:
    path = env.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    with open_input(markdown) as source:
        text = source.read(MAX_SUMMARY_BYTES).decode("utf-8", "replace")
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(text + "\n")


if __name__ == "__main__":
    run()
