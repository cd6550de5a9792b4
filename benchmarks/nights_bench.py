"""Seven simulated nights of a big site audited with a history and a request budget.

    python benchmarks/nights_bench.py run DIR --auditor PATH [--urls 1000000] [--nights 7]
        [--budget 150000] [--max-age 7] [--changes 3000] [--workers 1]
    python benchmarks/nights_bench.py night --days K -- ARGS...   # one night (the auditor's args)

`run` serves a site of --urls pages from nginx (another process, 127.0.0.1) and audits it once a
night with `--history --budget --max-age`, the audit's clock K days on for night K. Between
nights the generator changes --changes pages (a page goes 404, says noindex, or comes back),
half of them with a new lastmod in the sitemap, the others silently; every page sends an ETag
and answers 304 when asked with it. Each night's audit is measured alone (wall, CPU, peak RSS
of its process tree); its report is read back line by line and held against what the site
really answered: every fresh verdict must be right, every URL requested within the nights,
every change with a new lastmod found the night it was made, and every silent one within
--max-age of it (or still within it when the nights end). Prints one JSON line: the counts,
each night's measures, the history's size on disk.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from array import array
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from measure import Measured, run_measured
from site_server import RequestLog, find_nginx, free_port

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
CHILDREN = 20
OK, GONE, NOINDEX = 0, 1, 2
BASE_LASTMOD = "2026-01-01"
FIRST_NIGHT = datetime(2026, 11, 1, 1, 0, tzinfo=UTC)  # night 0's clock
NIGHT_TIMEOUT_S = 1800.0
NGINX_CONF = """
daemon off;
master_process on;
worker_processes auto;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    server_tokens off;
    log_format bench '$request_method $status';
    access_log {work}/access.log bench buffer=64k flush=100ms;
    client_body_temp_path {work}/tmp/body;
    proxy_temp_path {work}/tmp/proxy;
    fastcgi_temp_path {work}/tmp/fastcgi;
    uwsgi_temp_path {work}/tmp/uwsgi;
    scgi_temp_path {work}/tmp/scgi;
    map_hash_max_size 262144;
    map_hash_bucket_size 64;
    map $uri $page_version {{ include {site}/versions.map; default "v0"; }}
    map $uri $page_gone {{ include {site}/gone.map; default 0; }}
    map $uri $page_noindex {{ include {site}/noindex.map; default ""; }}
    server {{
        listen 127.0.0.1:{port};
        root {site};
        location = /robots.txt {{ }}
        location /sitemaps/ {{ types {{ application/gzip gz; application/xml xml; }} }}
        location = /sitemap_index.xml {{ types {{ application/xml xml; }} }}
        location ~ ^/p/(\\d+)$ {{
            set $etag "\\"$page_version\\"";
            if ($page_gone) {{ return 404; }}
            add_header ETag $etag always;
            add_header X-Robots-Tag $page_noindex;
            if ($http_if_none_match = $etag) {{ return 304; }}
            default_type text/html;
            return 200 "<!doctype html><html lang=en><title>Page $1</title><body></body></html>";
        }}
    }}
}}
"""


@dataclass(slots=True)
class Change:
    """What the generator changed before a night."""

    page: int
    night: int
    lastmod: bool  # its sitemap's lastmod moved too
    found: int = -1  # the night its fresh check first saw it (-1: not yet)


@dataclass(slots=True)
class Site:
    """Every page's state, the night its ETag last changed, and the night of its lastmod."""

    urls: int
    rng: random.Random
    state: bytearray = field(init=False)
    version: array[int] = field(init=False)
    lastmod: array[int] = field(init=False)  # -1: the base date

    def __post_init__(self) -> None:
        self.state = bytearray(self.urls)
        self.version = array("h", bytes(2 * self.urls))
        self.lastmod = array("h", [-1]) * self.urls

    def change(self, night: int, count: int) -> list[Change]:
        """`count` pages changed for `night`, half of them with a new lastmod."""
        made: list[Change] = []
        for page in self.rng.sample(range(self.urls), count):
            if self.state[page] == OK:
                self.state[page] = self.rng.choice((GONE, NOINDEX))
            else:
                self.state[page] = OK
            self.version[page] = night
            moved = len(made) % 2 == 0
            if moved:
                self.lastmod[page] = night
            made.append(Change(page, night, moved))
        return made

    def write(self, folder: Path, base: str) -> None:
        """The sitemaps (an index, gzipped children) and nginx's maps of the pages' states."""
        (folder / "sitemaps").mkdir(parents=True, exist_ok=True)
        per_child = -(-self.urls // CHILDREN)
        names = []
        for k in range(CHILDREN):
            pages = range(k * per_child, min(self.urls, (k + 1) * per_child))
            body = "".join(
                f"<url><loc>{base}/p/{n}</loc><lastmod>{self._lastmod(n)}</lastmod></url>\n"
                for n in pages
            )
            name = f"sitemaps/sitemap-{k + 1:02d}.xml.gz"
            data = f'{XML_HEAD}<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()
            (folder / name).write_bytes(gzip.compress(data, compresslevel=1, mtime=0))
            names.append(name)
        index = "".join(f"<sitemap><loc>{base}/{name}</loc></sitemap>\n" for name in names)
        (folder / "sitemap_index.xml").write_text(
            f'{XML_HEAD}<sitemapindex xmlns="{NS}">\n{index}</sitemapindex>\n'
        )
        (folder / "robots.txt").write_text(f"User-agent: *\nSitemap: {base}/sitemap_index.xml\n")
        maps: dict[str, list[str]] = {"versions": [], "gone": [], "noindex": []}
        for n in range(self.urls):
            if self.version[n]:
                maps["versions"].append(f'/p/{n} "v{self.version[n]}";\n')
            if self.state[n] == GONE:
                maps["gone"].append(f"/p/{n} 1;\n")
            elif self.state[n] == NOINDEX:
                maps["noindex"].append(f'/p/{n} "noindex";\n')
        for name, lines in maps.items():
            (folder / f"{name}.map").write_text("".join(lines))

    def _lastmod(self, n: int) -> str:
        night = self.lastmod[n]
        return (
            BASE_LASTMOD if night < 0 else (FIRST_NIGHT + timedelta(days=night)).date().isoformat()
        )


class Nginx:
    """nginx serving the site on its own port; reloaded when the site changes."""

    def __init__(self, work: Path, site: Path) -> None:
        binary = find_nginx()
        if binary is None:
            raise SystemExit("nginx is not installed (benchmarks/setup.sh)")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        (work / "tmp").mkdir(parents=True, exist_ok=True)
        conf = work / "nginx.conf"
        conf.write_text(NGINX_CONF.format(work=work, site=site, port=self.port))
        self.work = work
        self.log = RequestLog(work / "access.log")
        self._argv = [binary, "-p", str(work), "-c", str(conf), "-e", str(work / "error.log")]
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start serving (the site's files and maps must be there)."""
        self.process = subprocess.Popen(
            self._argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 30
        while _status(self.base + "/robots.txt") != 200:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise SystemExit(f"nginx did not start (see {self.work / 'error.log'})")
            time.sleep(0.1)

    def reload(self, probe: str, status: int) -> None:
        """Read the maps again (SIGHUP); wait until `probe` answers `status`."""
        assert self.process is not None
        self.process.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 30
        while _status(self.base + probe) != status:
            if time.monotonic() > deadline:
                raise SystemExit(f"nginx did not reload: {probe} never answered {status}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


@dataclass(slots=True)
class Night:
    """One night's audit: measured, and what its report says."""

    night: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    exit_code: int
    requested: int = 0
    not_modified: int = 0
    carried: int = 0
    never_checked: int = 0
    max_age_exceeded: int = 0
    by_tier: dict[str, int] = field(default_factory=dict)
    fresh: int = 0
    wrong: int = 0  # fresh verdicts that are not what the site answered
    too_old: int = 0  # carried verdicts older than --max-age
    server_requests: dict[str, int] = field(default_factory=dict)


def run(args: argparse.Namespace) -> dict[str, object]:
    folder: Path = args.directory
    site_dir, work = folder / "site", folder / "work"
    for path in (site_dir, work):
        path.mkdir(parents=True, exist_ok=True)
    history = folder / "history.sqlite"
    for stale in folder.glob("history.sqlite*"):
        stale.unlink()
    site = Site(args.urls, random.Random(20261101))
    server = Nginx(work / "nginx", site_dir)
    fresh_nights = bytearray(args.urls)  # per page: a bit per night it was requested
    changes: list[Change] = []
    nights: list[Night] = []
    try:
        for night in range(args.nights):
            made = site.change(night, args.changes) if night else []
            changes += made
            started = time.monotonic()
            site.write(site_dir, server.base)
            probe = made[0] if made else None
            if night == 0:
                server.start()
            elif probe is not None:
                state = site.state[probe.page]
                server.reload(f"/p/{probe.page}", 404 if state == GONE else 200)
            generated_s = time.monotonic() - started
            server.log.skip()
            measured = _audit_night(args, server.base, history, work, night)
            result = Night(
                night,
                measured.wall_s,
                measured.cpu_s,
                measured.peak_rss_mb,
                measured.exit_code,
                server_requests=_pages_asked(server.log.since()),
            )
            _read_night(work / f"night-{night}.json", result, site, fresh_nights, args)
            (work / f"night-{night}.json").unlink(missing_ok=True)
            _found(changes, fresh_nights, night)
            nights.append(result)
            print(
                f"night {night}: generated in {generated_s:.0f} s; audit {result.wall_s:.0f} s, "
                f"cpu {result.cpu_s:.0f} s, rss {result.peak_rss_mb:.0f} MB; requested "
                f"{result.requested:,} ({result.not_modified:,} 304), carried "
                f"{result.carried:,}, never checked {result.never_checked:,}, wrong "
                f"{result.wrong}",
                file=sys.stderr,
                flush=True,
            )
    finally:
        server.stop()
    return _outcome(args, nights, changes, fresh_nights, history)


def _audit_night(
    args: argparse.Namespace, base: str, history: Path, work: Path, night: int
) -> Measured:
    auditor_args = [f"{base}/", "--history", str(history), "--budget", str(args.budget)]
    auditor_args += ["--max-age", str(args.max_age), "--json", str(work / f"night-{night}.json")]
    auditor_args += ["--out", str(work), "--concurrency", "128", "--per-host", "128"]
    auditor_args += ["--retries", "0", "--allow-private", "--no-progress", "--quiet"]
    auditor_args += ["--workers", str(args.workers)]
    python = args.auditor.parent / "python"
    argv = [str(python), __file__, "night", "--days", str(night), "--", *auditor_args]
    (work / "measure").mkdir(exist_ok=True)
    measured = run_measured(argv, work=work / "measure", timeout_s=NIGHT_TIMEOUT_S)
    if measured.exit_code not in (0, 1):
        errors = measured.stderr.read_text(errors="replace")[-2000:]
        raise SystemExit(f"night {night}: the audit exited {measured.exit_code}: {errors}")
    return measured


def _pages_asked(counts: Counter[str]) -> dict[str, int]:
    return {key: n for key, n in counts.items() if " " in key}


def _read_night(
    report: Path, result: Night, site: Site, fresh_nights: bytearray, args: argparse.Namespace
) -> None:
    """The report against the site: every fresh verdict right, no carried one too old."""
    from auditor.report.reader import ReportReader  # noqa: PLC0415 - the auditor's own reader

    night = result.night
    now = FIRST_NIGHT + timedelta(days=night)
    max_age = timedelta(days=args.max_age)
    bit = 1 << night
    for where, obj in ReportReader(report).records():
        if where == "urls":
            page = int(str(obj["loc"]).rsplit("/", 1)[1])
            if "status" not in obj:
                continue
            if obj.get("carried"):
                checked = datetime.fromisoformat(str(obj["checked_at"]).replace("Z", "+00:00"))
                result.too_old += now - checked >= max_age
                continue
            result.fresh += 1
            fresh_nights[page] |= bit
            result.wrong += not _right(obj, site.state[page])
        elif where not in ("sitemaps",) and "summary" in obj:
            said = obj["summary"]["history"]
            result.requested = said["requested"]
            result.not_modified = said["not_modified"]
            result.carried = said["carried"]
            result.never_checked = said["never_checked"]
            result.max_age_exceeded = said["max_age_exceeded"]
            result.by_tier = said["by_tier"]


def _right(entry: Mapping[str, object], state: int) -> bool:
    if state == GONE:
        return entry.get("status") == 404
    if state == NOINDEX:
        return entry.get("indexability_reason") == "noindex_header"
    return entry.get("status") == 200 and entry.get("indexability") == "indexable"


def _found(changes: list[Change], fresh_nights: bytearray, night: int) -> None:
    bit = 1 << night
    for change in changes:
        if change.found < 0 and change.night <= night and fresh_nights[change.page] & bit:
            change.found = night


def _outcome(
    args: argparse.Namespace,
    nights: list[Night],
    changes: list[Change],
    fresh_nights: bytearray,
    history: Path,
) -> dict[str, object]:
    last = len(nights) - 1
    with_lastmod = [c for c in changes if c.lastmod]
    silent = [c for c in changes if not c.lastmod]
    size = sum(path.stat().st_size for path in history.parent.glob(history.name + "*"))
    return {
        "urls": args.urls,
        "nights": len(nights),
        "budget": args.budget,
        "max_age_days": args.max_age,
        "requested_within_nights": sum(1 for bits in fresh_nights if bits),
        "wrong_verdicts": sum(n.wrong for n in nights),
        "carried_too_old": sum(n.too_old for n in nights),
        "over_budget_nights": sum(1 for n in nights if n.requested > args.budget),
        "lastmod_changes": len(with_lastmod),
        "lastmod_found_same_night": sum(1 for c in with_lastmod if c.found == c.night),
        "silent_changes": len(silent),
        "silent_found_within_max_age": sum(
            1 for c in silent if 0 <= c.found - c.night <= args.max_age
        ),
        "silent_pending_within_max_age": sum(
            1 for c in silent if c.found < 0 and last - c.night < args.max_age
        ),
        "silent_longest_wait_nights": max(
            (c.found - c.night for c in silent if c.found >= 0), default=0
        ),
        "history_mb": round(size / 2**20, 1),
        "history_bytes_per_url": round(size / args.urls, 1),
        "night_peak_rss_mb_max": round(max(n.peak_rss_mb for n in nights), 1),
        "per_night": [asdict(n) for n in nights],
    }


class _ShiftedClock:
    """The real clock, `days` later: night K of the simulation."""

    def __init__(self, days: int) -> None:
        self._shift = FIRST_NIGHT + timedelta(days=days) - datetime.now(UTC)

    def now(self) -> datetime:
        return datetime.now(UTC) + self._shift

    def monotonic(self) -> float:
        return time.monotonic()


def night(days: int, argv: list[str]) -> int:
    """One audit, as the command runs it, on a clock `days` on from night 0."""
    from auditor.cli.parser import parse_command  # noqa: PLC0415 - the auditor's python
    from auditor.flow.audit import audit  # noqa: PLC0415
    from auditor.processes.event_loop import run_in_loop  # noqa: PLC0415

    _, config = parse_command(argv)
    assert config is not None
    result = run_in_loop(audit(config, clock=_ShiftedClock(days)), config.loop)
    return int(result.exit_code)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    go = commands.add_parser("run")
    go.add_argument("directory", type=Path)
    go.add_argument("--auditor", type=Path, required=True, help="the sitemap-audit to run")
    go.add_argument("--urls", type=int, default=1_000_000)
    go.add_argument("--nights", type=int, default=7)
    go.add_argument("--budget", type=int, default=150_000)
    go.add_argument("--max-age", type=int, default=7)
    go.add_argument("--changes", type=int, default=3000)
    # One process: a budget is for a site requested at a polite pace, where the checks wait
    # on the network, not on a core (and each checker process is 35 MB more).
    go.add_argument("--workers", type=int, default=1)
    one = commands.add_parser("night")
    one.add_argument("--days", type=int, required=True)
    one.add_argument("args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command == "night":
        return night(args.days, [arg for arg in args.args if arg != "--"])
    print(json.dumps(run(args)))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
