"""The suite's access logs: a month of a big site's traffic, for the logs task (--access-log).

    python benchmarks/log_gen.py DIR --lines 10000000 --listed 1000000 [--files 8]

Writes, for the suite's tree of LISTED URLs (site_gen.py: /p/n, /e404/n, /rHK/n ...), the same
month of combined-format lines twice: `plain/access.log` (one file) and `gz/` (rotated as
logrotate leaves them: access.log, access.log.1, then access.log.N.gz, gzip level 6, oldest
first in time). Each line, by a seeded draw:
  8%    Googlebot from Google's published ranges (the shipped snapshot's addresses, IPv4 and
        IPv6): listed URLs (nine in ten of them; one in ten is never crawled), and unlisted
        pages /q/n (one hit in twenty)
  0.5%  a false Googlebot: public addresses outside the ranges (TEST-NET-2 and -3)
  2%    Bingbot from its ranges
  6%    other bots (AhrefsBot, SemrushBot, YandexBot, ...) on pages
  else  browsers: pages (two in five) and their assets, referred by a search engine or a page
The lines span 31 days ending when generated (the run's window of 30 days is inside them).
expected.json, written last, holds the counts the auditor must give.
"""

from __future__ import annotations

import argparse
import gzip
import ipaddress
import json
import random
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from site_gen import Kind, kind_of, url_of

FORMAT = 1  # bump when the generated lines change
DAYS = 31
RANGES = Path(__file__).resolve().parent.parent / "auditor/wings/logs/crawler_ranges.json"
GOOGLEBOT_UA = (
    "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like "
    "Gecko) Chrome/124.0.6367.201 Mobile Safari/537.36 (compatible; Googlebot/2.1; "
    "+http://www.google.com/bot.html)"
)
GOOGLEBOT_DESKTOP = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
BINGBOT_UA = (
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; "
    "+http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36"
)
OTHER_BOTS = (
    "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
    "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
    "Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
    "Mozilla/5.0 (compatible; DotBot/1.2; +https://opensiteexplorer.org/dotbot)",
)
BROWSERS = (
    (
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
        "Chrome/124.0.0.0 Safari/537.36"
    ),
    (
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, "
        "like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    ),
    "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
)
REFERRERS = ("-", "https://www.google.com/", "https://www.bing.com/", "https://www.example.com/")


@dataclass(frozen=True, slots=True)
class LogExpected:
    """What the logs hold, and what the auditor counts of them."""

    format: int
    lines: int
    listed: int
    made_at: float  # Unix seconds: the lines end here
    googlebot: int  # verified Googlebot lines
    spoofed: int  # false Googlebot claims
    bingbot: int  # verified Bingbot lines
    files_gz: int


def addresses(family: str, count: int, rng: random.Random) -> list[str]:
    """`count` addresses of the shipped snapshot's prefixes for `family` (googlebot, bingbot)."""
    prefixes = json.loads(RANGES.read_text())["crawlers"][family]["prefixes"]
    networks = [ipaddress.ip_network(p.get("ipv4Prefix") or p["ipv6Prefix"]) for p in prefixes]
    found = []
    for _ in range(count):
        network = rng.choice(networks)
        found.append(
            str(network.network_address + rng.randrange(1, min(network.num_addresses, 1 << 16)))
        )
    return found


def lines(count: int, listed: int, rng: random.Random, end: float) -> Iterator[tuple[str, str]]:
    """(kind, line) in time order."""
    google = addresses("googlebot", 300, rng)
    bing = addresses("bingbot", 60, rng)
    spoofers = [f"203.0.113.{n}" for n in range(1, 40)] + [f"198.51.100.{n}" for n in range(1, 9)]
    start = end - DAYS * 86_400
    step = DAYS * 86_400 / count
    for number in range(count):
        moment = datetime.fromtimestamp(start + number * step, UTC)
        when = moment.strftime("%d/%b/%Y:%H:%M:%S +0000")
        draw = rng.random()
        if draw < 0.08:
            agent = GOOGLEBOT_UA if draw < 0.06 else GOOGLEBOT_DESKTOP
            kind, address, path = "googlebot", rng.choice(google), _crawled(rng, listed)
        elif draw < 0.085:
            kind, address, agent = "spoofed", rng.choice(spoofers), GOOGLEBOT_UA
            path = _crawled(rng, listed)
        elif draw < 0.105:
            kind, address, agent = "bingbot", rng.choice(bing), BINGBOT_UA
            path = _page(rng, listed)
        elif draw < 0.165:
            kind, address, agent = "bot", _client(rng), rng.choice(OTHER_BOTS)
            path = _page(rng, listed)
        else:
            kind, address, agent = "browser", _client(rng), rng.choice(BROWSERS)
            path = _page(rng, listed) if rng.random() < 0.4 else _asset(rng)
        referrer, size = rng.choice(REFERRERS), rng.randrange(200, 90_000)
        request = f'"GET {path} HTTP/1.1" {_status(path)} {size}'
        yield kind, f'{address} - - [{when}] {request} "{referrer}" "{agent}"\n'


def _status(path: str) -> int:
    if path.startswith("/e404/"):
        return 404
    if path.startswith("/e500/"):
        return 500
    return 301 if path.startswith("/r") else 200


def _asset(rng: random.Random) -> str:
    return f"/static/{rng.randrange(200)}.{rng.choice(('js', 'css', 'png', 'woff2'))}"


def _path(n: int) -> str:
    """The path of the tree's n-th URL (its host is the served tree's)."""
    return "/" + url_of("http://h:1", n).split("/", 3)[3]


def _crawled(rng: random.Random, listed: int) -> str:
    if rng.random() < 0.05:
        return f"/q/{rng.randrange(listed)}"  # a page no sitemap lists
    n = rng.randrange(listed)
    if n % 10 == 7 or kind_of(n) is Kind.OFF_HOST:
        n = (n + 1) % listed  # one listed URL in ten is never crawled
    return _path(n)


def _page(rng: random.Random, listed: int) -> str:
    return _path(rng.randrange(listed))


def _client(rng: random.Random) -> str:
    first, second, third = rng.randrange(11, 223), rng.randrange(256), rng.randrange(256)
    return f"{first}.{second}.{third}.{rng.randrange(1, 255)}"


def file_names(files: int) -> list[str]:
    """The rotated files, oldest lines first: access.log.N.gz ... access.log.1, access.log."""
    names = ["access.log", "access.log.1"] + [f"access.log.{n}.gz" for n in range(2, files)]
    return list(reversed(names[:files]))


def _writer(path: Path) -> TextIO:
    """A log file open for writing: gzip-compressed (level 6, logrotate's) by its name."""
    if path.suffix == ".gz":
        return gzip.open(path, "wt", compresslevel=6)
    return path.open("w")


def generate(folder: Path, *, count: int, listed: int, files: int) -> LogExpected:
    """Write both copies of the month, then expected.json."""
    (folder / "plain").mkdir(parents=True, exist_ok=True)
    (folder / "gz").mkdir(parents=True, exist_ok=True)
    end = time.time()
    kinds: dict[str, int] = {}
    per_file = -(-count // files)
    names = file_names(files)
    with ExitStack() as stack:
        plain = stack.enter_context((folder / "plain" / "access.log").open("w"))
        outs = []
        for name in names:
            path = folder / "gz" / name
            outs.append(stack.enter_context(_writer(path)))
        for number, (kind, line) in enumerate(lines(count, listed, random.Random(40), end)):
            kinds[kind] = kinds.get(kind, 0) + 1
            plain.write(line)
            outs[number // per_file].write(line)
    expected = LogExpected(
        FORMAT,
        count,
        listed,
        end,
        kinds.get("googlebot", 0),
        kinds.get("spoofed", 0),
        kinds.get("bingbot", 0),
        sum(name.endswith(".gz") for name in names),
    )
    (folder / "expected.json").write_text(json.dumps(asdict(expected), indent=2) + "\n")
    return expected


def load_expected(folder: Path) -> LogExpected | None:
    try:
        found = LogExpected(**json.loads((folder / "expected.json").read_text()))
    except (OSError, ValueError, TypeError):
        return None
    return found if found.format == FORMAT else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--lines", type=int, default=10_000_000)
    parser.add_argument("--listed", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=8)
    args = parser.parse_args()
    started = time.monotonic()
    found = generate(args.folder, count=args.lines, listed=args.listed, files=args.files)
    print(f"{found.lines:,} lines in {time.monotonic() - started:.0f} s: {asdict(found)}")


if __name__ == "__main__":
    main()
