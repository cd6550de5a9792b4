"""The suite's rows: the command each tool runs for a task, and how its answer is judged.

A row is right only when its counts are the tree's expected ones (site_gen.Expected): a fast
wrong answer is a failure. The auditor's counts come from its JSON report's summary, the bare
loops' and the parse peers' from the JSON they print, lychee's from its JSON output.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from crawl_gen import CrawlExpected
from log_gen import LogExpected
from measure import Measured
from site_gen import Expected

HERE = Path(__file__).resolve().parent
AUDITOR = Path(sys.executable).parent / "sitemap-audit"
PEERS = HERE / ".venv-peers" / "bin"
CORES = len(os.sched_getaffinity(0))  # the cores this process may use: --workers' default


class TaskKind(StrEnum):
    PARSE = "parse"  # discover, read and parse the tree (the auditor validates too, --no-check)
    CHECK = "check"  # ... and request every URL
    FLEET = "fleet"  # several sites, each checked: --fleet against single runs one by one
    HTTPS = "https"  # the same checks, every URL over TLS (HTTP/2 where the client asks)
    DIFF = "diff"  # two reports of the tree's size compared URL by URL (no server)
    NIGHTS = "nights"  # a site audited night after night with a history and a budget
    CRAWL = "crawl"  # a site crawled link by link (crawl_gen.py), held against its sitemaps
    LOGS = "logs"  # a month of access logs (log_gen.py) read, joined with the tree's URLs


@dataclass(frozen=True, slots=True)
class Context:
    """What a row's command needs: the tree, the concurrency, a scratch folder."""

    base: str
    auditor: Path
    tree: Path
    expected: Expected
    concurrency: int
    work: Path
    sites: tuple[Expected, ...] = ()  # the fleet task's trees, one a site
    ca_file: Path | None = None  # the HTTPS tree's CA (a PEM file), trusted by every client
    crawl: CrawlExpected | None = None  # the crawl task's counts (crawl_gen.py)
    logs: tuple[Path, ...] = ()  # the logs task's files (log_gen.py), oldest lines first
    log_counts: LogExpected | None = None


@dataclass(slots=True)
class Verdict:
    """A row's answer: the URLs it says it handled, and what is wrong with its counts."""

    urls: int = -1
    problems: list[str] = field(default_factory=list)
    details: dict[str, object] = field(default_factory=dict)


Judge = Callable[[Measured, Context], Verdict]


@dataclass(frozen=True, slots=True)
class Row:
    """One tool on one kind of task; `references` are rows of the same task and round."""

    name: str
    kind: TaskKind
    command: Callable[[Context], list[str]]
    judge: Judge
    references: tuple[str, ...] = ()
    auditor_flags: tuple[str, ...] = ()  # flags the installed auditor must accept


# --- the auditor ---------------------------------------------------------------------------


def auditor_command(ctx: Context, *extra: str) -> list[str]:
    """check_bench.py's command line, with no retries (the peers and loops retry nothing)."""
    c = str(ctx.concurrency)
    argv = [str(ctx.auditor), f"{ctx.base}/", "--concurrency", c, "--per-host", c, "--retries", "0"]
    argv += ["--allow-private", "--no-progress", "--quiet"]
    if ctx.ca_file is not None:
        argv += ["--ca-file", str(ctx.ca_file)]
    return [*argv, "--json", str(ctx.work / "report.json"), "--out", str(ctx.work), *extra]


def read_summary(report: Path) -> dict[str, object]:
    """The report's `summary` object: the last member, so only the file's tail is read."""
    with report.open("rb") as file:
        file.seek(max(0, report.stat().st_size - (1 << 20)))
        tail = file.read().decode(errors="replace")
    start = tail.rindex('"summary":') + len('"summary":')
    summary, _ = json.JSONDecoder().raw_decode(tail, start)
    assert isinstance(summary, dict)
    return summary


def judge_auditor(measured: Measured, ctx: Context, *, checks: bool) -> Verdict:
    """The report's summary against the tree: documents, URLs, status classes, finding codes."""
    verdict = Verdict()
    if measured.exit_code not in (0, 1):  # 1: findings at --fail-on error, as this site has
        verdict.problems.append(f"exit {measured.exit_code}")
    try:
        summary = read_summary(ctx.work / "report.json")
    except (OSError, ValueError, AssertionError) as exc:
        verdict.problems.append(f"no report ({type(exc).__name__}: {exc})")
        return verdict
    want = ctx.expected
    verdict.urls = int(str(summary.get("checked" if checks else "urls")))
    verdict.details = {key: summary.get(key) for key in ("checked", "by_status_class", "by_code")}
    verdict.details["duration_s"] = summary.get("duration_s")
    wanted: dict[str, object] = {
        "sitemaps": want.sitemaps,
        "urls": want.urls,
        "entries": want.urls,
        "checked": want.urls if checks else 0,
        "by_status_class": want.by_status_class if checks else {},
        "by_code": want.by_code if checks else want.by_code_no_check,
    }
    for key, value in wanted.items():
        if summary.get(key) != value:
            verdict.problems.append(f"{key} {summary.get(key)} (want {value})")
    return verdict


# --- the bare loops ------------------------------------------------------------------------


def bare_command(ctx: Context, task: str) -> list[str]:
    argv = [sys.executable, str(HERE / "bare.py"), task, ctx.base]
    return [*argv, "--concurrency", str(ctx.concurrency)]


def bare_curl_command(ctx: Context) -> list[str]:
    argv = [sys.executable, str(HERE / "bare_curl.py"), ctx.base]
    argv += ["--concurrency", str(ctx.concurrency)]
    return [*argv, "--ca-file", str(ctx.ca_file)] if ctx.ca_file is not None else argv


def printed_json(measured: Measured, verdict: Verdict) -> dict[str, object] | None:
    """The JSON object a child printed last, or None (noted as a problem)."""
    try:
        lines = measured.stdout.read_text().strip().splitlines()
        answer = json.loads(lines[-1])
        assert isinstance(answer, dict)
    except (OSError, ValueError, IndexError, AssertionError) as exc:
        verdict.problems.append(f"no result ({type(exc).__name__})")
        return None
    return answer


def judge_printed(measured: Measured, *, wanted: dict[str, object]) -> Verdict:
    """A child's printed counts against `wanted` (its "urls" is the row's count)."""
    verdict = Verdict()
    if measured.exit_code != 0:
        verdict.problems.append(f"exit {measured.exit_code}")
    answer = printed_json(measured, verdict)
    if answer is None:
        return verdict
    verdict.urls = int(str(answer.get("checked", answer.get("urls", -1))))
    verdict.details = answer
    for key, value in wanted.items():
        if answer.get(key) != value:
            verdict.problems.append(f"{key} {answer.get(key)} (want {value})")
    return verdict


def bare_final(want: Expected) -> dict[str, int]:
    """Where the bare check loop's chains end: 200s, 404s, 500s, and loops. Pure."""
    final = {
        "2xx": want.final_ok,
        "4xx": want.by_status_class.get("4xx", 0),
        "5xx": want.by_status_class.get("5xx", 0),
        "loop": want.kinds["loop"],
    }
    return {key: n for key, n in final.items() if n}


def judge_bare_parse(measured: Measured, ctx: Context) -> Verdict:
    wanted: dict[str, object] = {"urls": ctx.expected.urls, "sitemaps": ctx.expected.sitemaps}
    return judge_printed(measured, wanted=wanted)


def judge_bare_check(measured: Measured, ctx: Context) -> Verdict:
    want = ctx.expected
    wanted: dict[str, object] = {
        "urls": want.urls,
        "checked": want.urls,
        "by_status_class": want.by_status_class,
        "final": bare_final(want),
    }
    return judge_printed(measured, wanted=wanted)


# --- the peers -----------------------------------------------------------------------------


def peer_command(ctx: Context, peer: str) -> list[str]:
    return [str(PEERS / "python"), str(HERE / "peer_parse.py"), peer, ctx.base]


def judge_peer_parse(measured: Measured, ctx: Context) -> Verdict:
    return judge_printed(measured, wanted={"urls": ctx.expected.urls})


def lychee_command(ctx: Context) -> list[str]:
    """lychee on the tree's URL list, at the same concurrency, per host too; no retries, no
    interval between requests to a host, no cache; redirects followed up to 10 hops (as the
    auditor). It reads no sitemap: urls.txt is the list the sitemaps hold. Over TLS it is told
    --insecure: it has no option to trust one more CA (it still does every handshake)."""
    c = str(ctx.concurrency)
    argv = [str(PEERS / "lychee"), "--max-concurrency", c, "--host-concurrency", c]
    argv += ["--host-request-interval", "0s", "--max-retries", "0", "--max-redirects", "10"]
    argv += ["--timeout", "15", "--no-progress", "--cache=false", "--format", "json"]
    if ctx.ca_file is not None:
        argv += ["--insecure"]
    return [*argv, "--output", str(ctx.work / "lychee.json"), str(ctx.tree / "urls.txt")]


def judge_lychee(measured: Measured, ctx: Context) -> Verdict:
    """lychee judges where a chain ends: a redirect to a 200 is a success; 404, 500 and loops
    (too many redirects) are errors."""
    verdict = Verdict()
    if measured.exit_code not in (0, 2):  # 2: broken links found, as this site has
        verdict.problems.append(f"exit {measured.exit_code}")
    try:
        answer = json.loads((ctx.work / "lychee.json").read_text())
    except (OSError, ValueError) as exc:
        verdict.problems.append(f"no output ({type(exc).__name__})")
        return verdict
    want = ctx.expected
    wanted = {
        "total": want.urls,
        "successful": want.final_ok,
        "errors": want.final_errors,
        "redirects": want.by_status_class.get("3xx", 0),
        "timeouts": 0,
    }
    verdict.details = {key: answer.get(key) for key in (*wanted, "unique", "excludes")}
    verdict.urls = int(answer.get("total", -1))
    for key, value in wanted.items():
        if answer.get(key) != value:
            verdict.problems.append(f"{key} {answer.get(key)} (want {value})")
    return verdict


# --- the fleet: N sites on a LocalCluster, against N single runs one after another ---------


def site_name(number: int) -> str:
    return f"s{number:02d}"


def fleet_command(ctx: Context) -> list[str]:
    """`--fleet` over the trees (a TOML fleet file in the work folder), its default cluster: a
    LocalCluster of the cores, each site in its worker's process."""
    fleet = ctx.work / "fleet.toml"
    fleet.write_text(
        "\n".join(
            f'[[site]]\nname = "{site_name(k)}"\ntarget = "{site.base}/"\n'
            for k, site in enumerate(ctx.sites)
        )
    )
    c = str(ctx.concurrency)
    argv = [str(ctx.auditor), "--fleet", str(fleet), "--concurrency", c, "--per-host", c]
    argv += ["--retries", "0", "--allow-private", "--no-progress", "--quiet"]
    return [*argv, "--out", str(ctx.work / "fleet"), "--json", str(ctx.work / "fleet.json")]


def sequential_command(ctx: Context) -> list[str]:
    """The same sites as single runs, one after another (each with its default --workers)."""
    runs = []
    for k, site in enumerate(ctx.sites):
        one = Context(site.base, ctx.auditor, ctx.tree, site, ctx.concurrency, ctx.work)
        argv = auditor_command(one)
        argv[argv.index("--json") + 1] = str(ctx.work / f"{site_name(k)}.json")
        runs.append(shlex.join(argv))
    return [shutil.which("sh") or "/bin/sh", "-c", "; ".join(runs)]  # posix_spawn: a path


def site_problems(summary: dict[str, object], want: Expected) -> list[str]:
    """A site's report summary against its tree's expected counts (with checks)."""
    wanted: dict[str, object] = {
        "sitemaps": want.sitemaps,
        "urls": want.urls,
        "checked": want.urls,
        "by_status_class": want.by_status_class,
        "by_code": want.by_code,
    }
    return [f"{k} {summary.get(k)} (want {v})" for k, v in wanted.items() if summary.get(k) != v]


def judge_sites(reports: list[Path], measured: Measured, ctx: Context) -> Verdict:
    """Every site's report against its tree: the row is right when all of them are."""
    verdict = Verdict(urls=0)
    if measured.exit_code not in (0, 1):  # 1: the sites' findings at --fail-on error
        verdict.problems.append(f"exit {measured.exit_code}")
    for k, (report, want) in enumerate(zip(reports, ctx.sites, strict=True)):
        try:
            summary = read_summary(report)
        except (OSError, ValueError, AssertionError) as exc:
            verdict.problems.append(f"{site_name(k)}: no report ({type(exc).__name__})")
            continue
        verdict.urls += int(str(summary.get("checked")))
        verdict.problems += [f"{site_name(k)}: {p}" for p in site_problems(summary, want)]
    verdict.details = {"sites": len(reports)}
    return verdict


def judge_fleet(measured: Measured, ctx: Context) -> Verdict:
    """The fleet summary names each site's report; each is judged against its tree."""
    try:
        fleet = json.loads((ctx.work / "fleet.json").read_text())
        paths = {site["name"]: site["reports"]["json"] for site in fleet["sites"]}
        reports = [ctx.work / paths[site_name(k)] for k in range(len(ctx.sites))]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return Verdict(problems=[f"no fleet summary ({type(exc).__name__}: {exc})"])
    verdict = judge_sites(reports, measured, ctx)
    verdict.details["fleet_duration_s"] = fleet.get("duration_s")
    return verdict


def judge_sequential(measured: Measured, ctx: Context) -> Verdict:
    reports = [ctx.work / f"{site_name(k)}.json" for k in range(len(ctx.sites))]
    return judge_sites(reports, measured, ctx)


# --- the rows ------------------------------------------------------------------------------


def _auditor_check(*extra: str) -> Callable[[Context], list[str]]:
    return lambda ctx: auditor_command(ctx, *extra)


def _checks(measured: Measured, ctx: Context) -> Verdict:
    return judge_auditor(measured, ctx, checks=True)


def _no_checks(measured: Measured, ctx: Context) -> Verdict:
    return judge_auditor(measured, ctx, checks=False)


# --- the comparison of two reports (--baseline) -------------------------------------------


def diff_command(ctx: Context, what: str) -> list[str]:
    """diff_bench.py on the task's two reports (ctx.tree), in the auditor's own Python."""
    return [str(ctx.auditor.parent / "python"), str(HERE / "diff_bench.py"), what, str(ctx.tree)]


def judge_diff(measured: Measured, ctx: Context) -> Verdict:
    """The comparison's counts against those the generator wrote beside the reports."""
    wanted = json.loads((ctx.tree / "expected.json").read_text())
    urls = wanted.pop("urls")
    verdict = judge_printed(measured, wanted=wanted)
    verdict.urls = urls if not verdict.problems else -1
    return verdict


def judge_bare_read(measured: Measured, ctx: Context) -> Verdict:
    urls = json.loads((ctx.tree / "expected.json").read_text())["urls"]
    verdict = judge_printed(measured, wanted={"lines": 2 * urls})
    verdict.urls = urls if not verdict.problems else -1
    return verdict


# --- nights: a big site with a history, a budget and changes between nights ---------------


def nights_command(ctx: Context) -> list[str]:
    """nights_bench.py's seven nights, in the auditor's own Python (it runs each night's audit
    with the audit's clock a day on, and measures it alone)."""
    python = str(ctx.auditor.parent / "python")
    argv = [python, str(HERE / "nights_bench.py"), "run", str(ctx.tree)]
    return [*argv, "--auditor", str(ctx.auditor), "--urls", str(ctx.expected.urls)]


def judge_nights(measured: Measured, _ctx: Context) -> Verdict:
    """Every verdict right, every URL requested within the nights, every change found in time."""
    verdict = Verdict()
    if measured.exit_code != 0:
        verdict.problems.append(f"exit {measured.exit_code}")
    found = printed_json(measured, verdict)
    if found is None:
        return verdict
    verdict.details = found
    urls = int(str(found["urls"]))
    silent = int(str(found["silent_changes"]))
    within = int(str(found["silent_found_within_max_age"]))
    pending = int(str(found["silent_pending_within_max_age"]))
    wanted = {
        "requested_within_nights": urls,
        "wrong_verdicts": 0,
        "carried_too_old": 0,
        "over_budget_nights": 0,
        "lastmod_found_same_night": found["lastmod_changes"],
    }
    for key, value in wanted.items():
        if found.get(key) != value:
            verdict.problems.append(f"{key} {found.get(key)} (want {value})")
    if within + pending != silent:
        verdict.problems.append(f"silent changes missed: {silent - within - pending}")
    verdict.urls = urls if not verdict.problems else -1
    return verdict


# --- the crawl: the auditor's --crawl, Scrapy, and lexbor alone over the pages --------------


def crawl_command(ctx: Context) -> list[str]:
    """--crawl in one process (Scrapy's is one), every page requested once, no retries."""
    return auditor_command(ctx, "--crawl", "--crawl-max", "10000000", "--workers", "1")


def judge_crawl(measured: Measured, ctx: Context) -> Verdict:
    """summary.coverage against the counts the generator wrote beside the site."""
    verdict = Verdict()
    if measured.exit_code not in (0, 1):
        verdict.problems.append(f"exit {measured.exit_code}")
    assert ctx.crawl is not None
    try:
        coverage = read_summary(ctx.work / "report.json")["coverage"]
        assert isinstance(coverage, dict)
    except (OSError, ValueError, AssertionError, KeyError) as exc:
        verdict.problems.append(f"no coverage ({type(exc).__name__}: {exc})")
        return verdict
    wanted = ctx.crawl.coverage()
    verdict.details = {key: coverage.get(key) for key in wanted}
    for key, value in wanted.items():
        if coverage.get(key) != value:
            verdict.problems.append(f"{key} {coverage.get(key)} (want {value})")
    verdict.urls = int(str(coverage.get("crawled"))) if not verdict.problems else -1
    return verdict


def scrapy_command(ctx: Context) -> list[str]:
    argv = [str(PEERS / "python"), str(HERE / "peer_crawl.py"), ctx.base]
    return [*argv, "--concurrency", str(ctx.concurrency)]


def judge_scrapy(measured: Measured, ctx: Context) -> Verdict:
    """The pages Scrapy received (a 404 is one): every page the crawl must request."""
    assert ctx.crawl is not None
    verdict = judge_printed(measured, wanted={"pages": ctx.crawl.crawled})
    verdict.urls = ctx.crawl.crawled if not verdict.problems else -1
    return verdict


def bare_links_command(ctx: Context) -> list[str]:
    return [sys.executable, str(HERE / "bare_links.py"), str(ctx.tree)]


def judge_bare_links(measured: Measured, ctx: Context) -> Verdict:
    """lexbor over every page file the generator wrote."""
    assert ctx.crawl is not None
    verdict = judge_printed(measured, wanted={"pages": ctx.crawl.files})
    verdict.urls = ctx.crawl.files if not verdict.problems else -1
    return verdict


# --- the logs: the auditor's --access-log, the bare loop, GoAccess ------------------------


def logs_command(ctx: Context) -> list[str]:
    """The tree's sitemaps read (no checks) and joined with the month of logs.

    At the default --workers (the cores): one helper reads the logs beside the run's process,
    then the sitemaps' parse helpers start. The "w1" row is the same in one process alone.
    """
    flags = [flag for path in ctx.logs for flag in ("--access-log", str(path))]
    return auditor_command(ctx, "--no-check", *flags)


def judge_logs(measured: Measured, ctx: Context) -> Verdict:
    """summary.logs against the generator's counts; the reading's own rate in the details."""
    verdict = Verdict()
    if measured.exit_code not in (0, 1):
        verdict.problems.append(f"exit {measured.exit_code}")
    want = ctx.log_counts
    assert want is not None
    try:
        summary = read_summary(ctx.work / "report.json")
        logs = summary["logs"]
        assert isinstance(logs, dict)
    except (OSError, ValueError, AssertionError, KeyError) as exc:
        verdict.problems.append(f"no logs ({type(exc).__name__}: {exc})")
        return verdict
    claims = logs.get("claims", {})
    google, bing = claims.get("Googlebot", {}), claims.get("bingbot", {})
    found = {
        "urls": summary.get("urls"),
        "lines": logs.get("lines"),
        "bad_lines": logs.get("bad_lines"),
        "googlebot": google.get("verified"),
        "spoofed": google.get("outside"),
        "bingbot": bing.get("verified"),
    }
    wanted = {"urls": ctx.expected.urls, "lines": want.lines, "bad_lines": 0}
    wanted |= {"googlebot": want.googlebot, "spoofed": want.spoofed, "bingbot": want.bingbot}
    for key, value in wanted.items():
        if found[key] != value:
            verdict.problems.append(f"{key} {found[key]} (want {value})")
    read_s = float(str(logs.get("read_s") or 0))
    verdict.details = found | {"read_s": read_s}
    verdict.details["log_lines_per_s"] = want.lines / read_s if read_s > 0 else 0.0
    verdict.urls = want.lines if not verdict.problems else -1
    return verdict


def bare_log_command(ctx: Context) -> list[str]:
    return [sys.executable, str(HERE / "bare_log.py"), *map(str, ctx.logs)]


def judge_bare_log(measured: Measured, ctx: Context) -> Verdict:
    assert ctx.log_counts is not None
    lines = ctx.log_counts.lines
    verdict = judge_printed(measured, wanted={"lines": lines, "matched": lines})
    verdict.urls = lines if not verdict.problems else -1
    return verdict


GOACCESS = shutil.which("goaccess") or "/usr/bin/goaccess"


def goaccess_command(ctx: Context) -> list[str]:
    """GoAccess over the same lines (gzip files through zcat, as its documentation shows)."""
    out = ["--log-format=COMBINED", "--no-global-config", "-o", str(ctx.work / "goaccess.json")]
    if not any(path.suffix == ".gz" for path in ctx.logs):
        return [GOACCESS, *map(str, ctx.logs), *out]
    files = " ".join(shlex.quote(str(path)) for path in ctx.logs)
    return ["/bin/sh", "-c", f"zcat -f {files} | {shlex.quote(GOACCESS)} - {' '.join(out)}"]


def judge_goaccess(measured: Measured, ctx: Context) -> Verdict:
    """Its requests, valid and failed, against the lines."""
    verdict = Verdict()
    assert ctx.log_counts is not None
    if measured.exit_code != 0:
        verdict.problems.append(f"exit {measured.exit_code}")
    try:
        general = json.loads((ctx.work / "goaccess.json").read_text())["general"]
    except (OSError, ValueError, KeyError) as exc:
        verdict.problems.append(f"no report ({type(exc).__name__})")
        return verdict
    total = general.get("total_requests")
    verdict.details = {key: general.get(key) for key in ("total_requests", "valid_requests")}
    if total != ctx.log_counts.lines:
        verdict.problems.append(f"total_requests {total} (want {ctx.log_counts.lines})")
    verdict.urls = ctx.log_counts.lines if not verdict.problems else -1
    return verdict


_P, _C, _S = TaskKind.PARSE, TaskKind.CHECK, TaskKind.HTTPS
_W = str(CORES)
ROWS = (
    Row("bare parse", _P, lambda ctx: bare_command(ctx, "parse"), judge_bare_parse),
    Row(
        "auditor --no-check",
        _P,
        _auditor_check("--no-check"),
        _no_checks,
        ("bare parse", "usp"),
    ),
    Row("usp", _P, lambda ctx: peer_command(ctx, "usp"), judge_peer_parse, ("bare parse",)),
    Row(
        "advertools",
        _P,
        lambda ctx: peer_command(ctx, "advertools"),
        judge_peer_parse,
        ("bare parse",),
    ),
    Row("bare check", _C, lambda ctx: bare_command(ctx, "check"), judge_bare_check),
    Row("bare curl", _C, bare_curl_command, judge_bare_check, ("bare check",)),
    # The targets' rows: default flags (--engine curl, --workers = the cores, --loop auto).
    Row(
        "auditor curl w1",
        _C,
        _auditor_check("--workers", "1"),
        _checks,
        ("lychee", "bare curl"),
        ("--workers", "--engine"),
    ),
    Row(
        f"auditor curl w{_W}",
        _C,
        _auditor_check(),
        _checks,
        ("lychee", "bare curl"),
        ("--workers", "--engine"),
    ),
    # What the default GET (each page's head read for noindex and canonical) costs against
    # statuses and headers alone.
    Row(
        f"auditor curl w{_W} head",
        _C,
        _auditor_check("--method", "head"),
        _checks,
        (f"auditor curl w{_W}",),
        ("--workers", "--engine", "--method"),
    ),
    Row(
        "auditor aiohttp w1",
        _C,
        _auditor_check("--engine", "aiohttp", "--workers", "1"),
        _checks,
        ("bare check", "auditor curl w1"),
        ("--workers", "--engine"),
    ),
    Row(
        f"auditor aiohttp w{_W}",
        _C,
        _auditor_check("--engine", "aiohttp"),
        _checks,
        ("lychee", f"auditor curl w{_W}"),
        ("--workers", "--engine"),
    ),
    Row("lychee", _C, lychee_command, judge_lychee, ("bare curl",)),
    Row("bare read", TaskKind.DIFF, lambda ctx: diff_command(ctx, "bare"), judge_bare_read),
    Row(
        "auditor compare",
        TaskKind.DIFF,
        lambda ctx: diff_command(ctx, "compare"),
        judge_diff,
        ("bare read",),
    ),
    Row("bare curl https", _S, bare_curl_command, judge_bare_check),
    Row(
        f"auditor curl w{_W} https",
        _S,
        _auditor_check(),
        _checks,
        ("lychee https", "bare curl https"),
        ("--workers", "--engine", "--ca-file"),
    ),
    Row(
        f"auditor aiohttp w{_W} https",
        _S,
        _auditor_check("--engine", "aiohttp"),
        _checks,
        ("lychee https", f"auditor curl w{_W} https"),
        ("--workers", "--engine", "--ca-file"),
    ),
    Row("lychee https", _S, lychee_command, judge_lychee, ("bare curl https",)),
    Row(
        "auditor nights",
        TaskKind.NIGHTS,
        nights_command,
        judge_nights,
        auditor_flags=("--history", "--budget", "--max-age"),
    ),
    Row("bare links", TaskKind.CRAWL, bare_links_command, judge_bare_links),
    Row(
        "auditor --crawl",
        TaskKind.CRAWL,
        crawl_command,
        judge_crawl,
        ("scrapy", "bare links"),
        ("--crawl",),
    ),
    Row("scrapy", TaskKind.CRAWL, scrapy_command, judge_scrapy, ("bare links",)),
    Row("bare log loop", TaskKind.LOGS, bare_log_command, judge_bare_log),
    Row(
        "auditor --access-log",
        TaskKind.LOGS,
        logs_command,
        judge_logs,
        ("bare log loop", "goaccess"),
        ("--access-log",),
    ),
    Row(
        "auditor --access-log w1",
        TaskKind.LOGS,
        lambda ctx: [*logs_command(ctx), "--workers", "1"],
        judge_logs,
        ("bare log loop", "auditor --access-log"),
        ("--access-log", "--workers"),
    ),
    Row("goaccess", TaskKind.LOGS, goaccess_command, judge_goaccess, ("bare log loop",)),
    Row("auditor sequential", TaskKind.FLEET, sequential_command, judge_sequential),
    Row(
        "auditor fleet",
        TaskKind.FLEET,
        fleet_command,
        judge_fleet,
        ("auditor sequential",),
        ("--fleet",),
    ),
)
