"""Refresh the shipped crawler ranges from Google's and Bing's published files.

A developer runs it (`python -m auditor.wings.logs.refresh_ranges`), never the audit: a run
reads the dated snapshot it writes (crawler_ranges.json) and needs no network for it. Each file
is checked as the run reads it before anything is written; `--out FILE` writes elsewhere (a
file for `--crawler-ranges`).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from datetime import UTC, datetime
from pathlib import Path

from auditor.files import write_atomically
from auditor.wings.logs.crawler_names import Family
from auditor.wings.logs.crawler_ranges import RangesError, read_ranges

# Google Search Central, "Verifying Googlebot and other Google crawlers"; Bing Webmaster Tools,
# "Verify Bingbot".
SOURCES = {
    Family.GOOGLE: "https://developers.google.com/static/search/apis/ipranges/googlebot.json",
    Family.BING: "https://www.bing.com/toolbox/bingbot.json",
}
SHIPPED = Path(__file__).with_name("crawler_ranges.json")
ABOUT = (
    "Google's and Bing's published crawler address ranges, as of the dates below: a line of an",
    "access log counts as a crawler's only from these addresses",
    "(docs/explanation/rules.md#verified-crawlers).",
    "Refresh: python -m auditor.wings.logs.refresh_ranges (a developer runs it; the run",
    "never downloads).",
)
MAX_BYTES = 1 << 20  # a published file is a few kilobytes
TIMEOUT_S = 30.0


def download(url: str) -> dict[str, object]:
    """One published file, checked as the run reads it (RangesError, OSError)."""
    request = urllib.request.Request(url, headers={"User-Agent": "sitemap-auditor refresh_ranges"})  # noqa: S310 - https, fixed
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:  # noqa: S310
        body = answer.read(MAX_BYTES + 1)
    if len(body) > MAX_BYTES:
        raise RangesError(f"{url}: over {MAX_BYTES} bytes")
    family = next(f for f, source in SOURCES.items() if source == url)
    return read_ranges(body.decode("utf-8"), name=family)[family]


def snapshot(published: dict[Family, dict[str, object]], *, today: str) -> dict[str, object]:
    """The snapshot file's content (the format `--crawler-ranges` reads)."""
    return {
        "about": list(ABOUT),
        "crawlers": {
            family.value: {
                "source": SOURCES[family],
                "copied_from": SOURCES[family],
                "copied_on": today,
                "creationTime": document.get("creationTime"),
                "prefixes": document["prefixes"],
            }
            for family, document in published.items()
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Download both files and write the snapshot; 1 (and nothing written) when one fails."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=SHIPPED, help="where (default: the shipped file)"
    )
    args = parser.parse_args(argv)
    published = {}
    for family, url in SOURCES.items():
        try:
            published[family] = download(url)
        except (OSError, RangesError, UnicodeDecodeError) as exc:
            print(f"{url}: {exc}", file=sys.stderr)  # noqa: T201 - a developer's script
            return 1
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    text = json.dumps(snapshot(published, today=today), indent=2) + "\n"
    write_atomically(args.out, text.encode())
    for family, document in published.items():
        prefixes = document["prefixes"]
        count = len(prefixes) if isinstance(prefixes, list) else 0
        print(f"{family.value}: {count} prefixes, created {document.get('creationTime')}")  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main())
