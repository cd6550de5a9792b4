"""The pre-commit hook (`sitemap-audit-hook`, .pre-commit-hooks.yaml): sitemap files validated.

The command with `--no-check` on the files a commit touches (any other option of the command may
come before them), its reports in a temporary folder; it prints one line per finding,
`FILE:LINE: SEVERITY CODE MESSAGE (URL)`, and exits as the command would: 1 when a finding is at
or above `--fail-on`.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from auditor.cli.parser import parse_command
from auditor.errors import ExitCode, RunError, UsageError
from auditor.flow.audit import audit
from auditor.models import Finding
from auditor.processes.event_loop import run_in_loop
from auditor.report.reader import ReportReader
from auditor.report.section import printable

PROG = "sitemap-audit-hook"


def main(argv: Sequence[str] | None = None) -> int:
    """Audit the files of `argv` (options first, as pre-commit passes them); the exit code."""
    given = list(sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix=f"{PROG}-") as folder:
        try:
            return _audit(given, report_path=Path(folder) / "report.json")
        except (UsageError, RunError) as exc:
            print(f"{PROG}: error: {exc}", file=sys.stderr)
            return exc.exit_code
        except KeyboardInterrupt:
            print(f"{PROG}: interrupted", file=sys.stderr)
            return ExitCode.FAILED


def _audit(given: list[str], *, report_path: Path) -> int:
    """Run the command's audit on the files, print one line per finding; the exit code."""
    # One process: a commit's few files are not worth starting a parse helper for.
    fixed = ["--no-check", "--json", str(report_path)]
    _, config = parse_command(["--workers", "1", *given, *fixed])
    if config is None:
        raise UsageError("--version and --print-schema are the command's, not the hook's")
    result = run_in_loop(audit(config), config.loop)
    for line in finding_lines(ReportReader(result.json_path)):
        print(line)
    return result.exit_code


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


def finding_lines(reader: ReportReader) -> Iterator[str]:
    """One line per finding of the report, the file named as it was given."""
    targets = reader.head().targets
    files = {target.url: target.input for target in targets}
    for target in targets:
        for item in target.findings:
            yield _line(item, where=target.input, line=None)
    for record in reader.sitemaps():
        where = files.get(record.url, record.url)
        for item in record.findings:
            line = item.detail.get("line") if item.detail else None
            yield _line(item, where=where, line=line)
    for url in reader.urls():
        where = files.get(url.sitemap, url.sitemap)
        for item in url.findings:
            yield _line(item, where=where, line=url.line)


def _line(item: Finding, *, where: str, line: object) -> str:
    place = f"{where}:{line}" if isinstance(line, int) else where
    about = f" ({printable(item.url)})" if item.url else ""
    return f"{place}: {item.severity.value} {item.code.value} {printable(item.message)}{about}"
