"""The baseline as a wing of the run: the run held against an earlier report, and known issues.

`--baseline`, `--fail-on-new`, `--max-drop`, `--accept-file`. Both files are read before
anything is written (one that cannot be used is a usage error); known issues are marked as the
sink takes each record, so that every output says which they are; this run's records go into
the comparison's store as they pass the sink, and the two runs are joined once it is over. The
section is the report's `diff`, and its regressions fail the run
(docs/explanation/design.md#regressions). See docs/how-to/monitoring.md.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from pathlib import Path

from auditor.config import AuditConfig, FailOn
from auditor.errors import ConfigError
from auditor.files import read_input
from auditor.limits import MAX_ACCEPT_FILE_BYTES
from auditor.options.row import RUN_OUTPUT, Group, Kind, Option, choices
from auditor.report.section import Section
from auditor.wings.baseline.acceptance import NO_RULES, AcceptRules, parse_accept_rules
from auditor.wings.baseline.compare import DropLimit, Gate
from auditor.wings.baseline.comparison import Comparison
from auditor.wings.feature import Conclusion, Lanes, Opening, WalkParts, Watch


@dataclass(frozen=True, slots=True)
class BaselineSettings:
    """The baseline's part of the run's configuration."""

    baseline: Path | None  # --baseline: an earlier JSON report
    fail_on_new: FailOn  # --fail-on-new
    accept_file: Path | None  # --accept-file: known issues
    drop: DropLimit  # --max-drop, --max-drop-urls

    @classmethod
    def of(cls, config: AuditConfig) -> BaselineSettings | None:
        """What a run asks of this wing (None: neither a baseline nor known issues)."""
        if config.baseline is None and config.accept_file is None:
            return None
        drop = DropLimit(config.max_drop, config.max_drop_urls)
        return cls(config.baseline, config.fail_on_new, config.accept_file, drop)


_G = Group.MONITORING
# Its options (docs/how-to/monitoring.md); each one's default and range are its field's.
ROWS: tuple[Option, ...] = (
    Option(
        "fail-on-new",
        _G,
        "with --baseline: exit 1 when something new since it is at this (%(default)s)",
        Kind.CHOICE,
        choices=choices(FailOn),
    ),
    Option(
        "max-drop",
        _G,
        "with --baseline: a sitemap whose URLs listed nowhere now are more than PCT percent of "
        "those it listed then regresses (%(default)s)",
        Kind.NUMBER,
        metavar="PCT",
    ),
    Option(
        "max-drop-urls",
        _G,
        "...and more than N of them: more than the larger of the two (%(default)s)",
        Kind.NUMBER,
        metavar="N",
    ),
    Option(
        "baseline",
        _G,
        "an earlier JSON report: diff, regressions",
        Kind.PATH,
        RUN_OUTPUT,
        metavar="PATH",
    ),
    Option(
        "accept-file",
        _G,
        "known issues (lines: CODE, URL-REGEX, or both): reported, never failing",
        Kind.PATH,
        metavar="FILE",
    ),
)


class BaselineFeature:
    """`--baseline` and `--accept-file`, as the registry lists them."""

    name = "baseline"
    rows = ROWS

    async def open(self, run: Opening, /) -> BaselineWing | None:
        """The known issues read, the baseline read into a comparison store beside the report.

        ConfigError or BaselineError (exit 2) when a file cannot be used.
        """
        settings = BaselineSettings.of(run.config)
        if settings is None:
            return None
        rules = await _accept_rules(settings.accept_file)
        comparison = None
        if settings.baseline is not None:
            # The report format's reader and sqlite, only for --baseline.
            from auditor.wings.baseline.baseline_reader import open_comparison  # noqa: PLC0415

            gate = Gate(settings.fail_on_new, rules or NO_RULES, settings.drop)
            folder = run.report.parent
            comparison = await open_comparison(settings.baseline, folder=folder, gate=gate)
            await run.stack.enter_async_context(comparison)
        return BaselineWing(rules, comparison)


FEATURE = BaselineFeature()


async def _accept_rules(path: Path | None) -> AcceptRules | None:
    """`--accept-file`'s rules (ConfigError, a usage error, naming a bad line)."""
    if path is None:
        return None
    try:
        data = await asyncio.to_thread(read_input, path, max_bytes=MAX_ACCEPT_FILE_BYTES)
        text = data.decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"--accept-file {path}: cannot read it ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"--accept-file {path}: not UTF-8 text ({exc.reason})") from None
    return parse_accept_rules(text, source=f"--accept-file {path}")


class BaselineWing:
    """One run's known issues and comparison."""

    def __init__(self, rules: AcceptRules | None, comparison: Comparison | None) -> None:
        self._rules = rules
        self._comparison = comparison

    async def watch(self, _parts: WalkParts, watch: Watch, /) -> Watch:
        """The sink marks known issues, and writes every record into the comparison too."""
        rules = self._rules if self._rules else None  # no rule: nothing to mark
        writers = (self._comparison,) if self._comparison is not None else ()
        return replace(watch, marks=rules, writers=(*watch.writers, *writers))

    def route(self, _parts: WalkParts, lanes: Lanes, /) -> Lanes:
        """The baseline routes nothing: it watches."""
        return lanes

    async def finish(self, ended: Conclusion, /) -> Section | None:
        """The report's `diff`: the targets' findings too, then the two runs joined."""
        comparison = self._comparison
        if comparison is None:
            return None
        for target in ended.targets:
            comparison.add_target(target)
        return await comparison.finish()
