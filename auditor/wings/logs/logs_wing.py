"""The access logs as a wing of the run (`--access-log`): what Googlebot crawled, vs the sitemaps.

Every log is read into a compact tally as the run opens, before anything is written (a file
that is no log is a usage error); each URL record then meets its hits at the sink, the run's
findings come once every record is in, the listed URLs' last hits are kept in the history
(--history), and the section is `summary.logs`. See docs/how-to/server-logs.md.
"""

from __future__ import annotations

from dataclasses import replace

from auditor.options.row import Group, Kind, Option, choices
from auditor.report.section import Section
from auditor.results.sink import Late
from auditor.wings.feature import Conclusion, Lanes, Opening, WalkParts, Watch, after
from auditor.wings.logs.access_logs import AccessLogs
from auditor.wings.logs.log_formats import LogFormat

_G = Group.LOGS
# Its options (docs/how-to/server-logs.md); each one's default and range are its field's.
ROWS: tuple[Option, ...] = (
    Option(
        "access-log",
        _G,
        "a server access log: a file, a folder, a glob or - (stdin); .gz read as a stream",
        Kind.PATH,
        metavar="PATH",
        repeat=True,
        setting="access_logs",
    ),
    Option(
        "log-format",
        _G,
        "combined, common, vhost-combined, json (nginx's names), caddy; auto: each file's own",
        Kind.CHOICE,
        choices=choices(LogFormat),
    ),
    Option(
        "log-field",
        _G,
        "a JSON lines' key for a field (ip, time, request, method, target, status, ua, host)",
        metavar="NAME=KEY",
        repeat=True,
        setting="log_fields",
    ),
    Option(
        "log-days",
        _G,
        "the window: logs.not_crawled when not crawled in N days (%(default)s)",
        Kind.NUMBER,
        metavar="N",
    ),
    Option(
        "log-error-rate",
        _G,
        "logs.crawler_errors above this share of a URL's hits, percent (%(default)s)",
        Kind.NUMBER,
        metavar="PERCENT",
    ),
    Option(
        "crawler-ranges",
        _G,
        "newer crawler ranges: a file of ours, or googlebot=FILE, bingbot=FILE as published",
        metavar="FILE",
        repeat=True,
    ),
)


class LogsFeature:
    """`--access-log`, as the registry lists it."""

    name = "logs"
    rows = ROWS

    async def open(self, run: Opening) -> LogsWing | None:
        """Every log read and tallied; None without `--access-log`.

        A usage error (exit 2) for a file that is no log, or a setting that cannot work. After
        the history (the registry's order): the hits its earlier runs kept count too.
        """
        logs = await AccessLogs.open(
            run.config, started_at=run.started_at, history=run.shelf.kept, stop=run.stop
        )
        if logs is None:
            return None
        run.stack.callback(logs.discard)
        return LogsWing(logs)


FEATURE = LogsFeature()


class LogsWing:
    """One run's access logs: joined at the sink, judged once every record is in, kept."""

    def __init__(self, logs: AccessLogs) -> None:
        self._logs = logs

    async def watch(self, parts: WalkParts, watch: Watch) -> Watch:
        """Each URL record joined with its hits at the sink; the last hits kept at the end."""
        parts.stack.push_async_callback(self._logs.keep)
        return replace(watch, joins=(*watch.joins, self._logs.join))

    def route(self, parts: WalkParts, lanes: Lanes) -> Lanes:
        """The run's findings, the sink's last item before its end: they count every record."""

        async def judged() -> None:
            await parts.sink(Late(self._logs.findings))

        return replace(lanes, checked=after(lanes.checked, judged))

    async def finish(self, _ended: Conclusion, /) -> Section:
        """`summary.logs`."""
        return await self._logs.section()
