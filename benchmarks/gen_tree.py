"""Generate a deterministic sitemap tree for benchmarks.

    python benchmarks/gen_tree.py DIR --base http://127.0.0.1:PORT [--urls N] [--children N]

Writes robots.txt (with a `Sitemap:` line), sitemap_index.xml listing the children, the children
as gzip files sitemaps/sitemap-NN.xml.gz (<loc> and <lastmod> on every <url>, <changefreq> and
<priority> on some), and expected.json with the exact counts. The URLs are absolute, under
`--base`, so the tree is generated once the server's port is known. expected.json is written
last: a tree with a matching expected.json is complete.
"""

from __future__ import annotations

import argparse
import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
FORMAT = 1  # bump when the generated files change, so that cached trees are regenerated
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
_FREQS = ("daily", "weekly", "monthly")


def expected(base: str, urls: int, children: int) -> dict[str, object]:
    """What expected.json holds for these parameters; also the cache key."""
    return {
        "format": FORMAT,
        "base": base,
        "urls": urls,
        "children": children,
        "sitemaps": children + 2,  # robots.txt + index + children
        "entries": urls,
    }


def url_entry(base: str, n: int) -> str:
    """The n-th <url>: every one has a lastmod, some a changefreq and a priority."""
    when = _EPOCH + timedelta(minutes=n)
    lastmod = when.strftime("%Y-%m-%d") if n % 2 else when.strftime("%Y-%m-%dT%H:%M:%SZ")
    extra = f"<changefreq>{_FREQS[n % 3]}</changefreq>" if n % 3 == 0 else ""
    extra += f"<priority>{n // 5 % 11 / 10:.1f}</priority>" if n % 5 == 0 else ""
    loc = f"{base}/products/item-{n:07d}.html"
    return f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod>{extra}</url>\n"


def generate(directory: Path, base: str, urls: int, children: int) -> dict[str, object]:
    """Write the tree under `directory`; return what expected.json says."""
    (directory / "expected.json").unlink(missing_ok=True)
    (directory / "sitemaps").mkdir(parents=True, exist_ok=True)
    locs = []
    per_child, extra = divmod(urls, children)
    start = 0
    for k in range(children):
        count = per_child + (k < extra)
        name = f"sitemaps/sitemap-{k + 1:02d}.xml.gz"
        body = "".join(url_entry(base, n) for n in range(start, start + count))
        data = (HEAD + body + "</urlset>\n").encode()
        (directory / name).write_bytes(gzip.compress(data, mtime=0))  # mtime=0: same bytes
        locs.append(f"{base}/{name}")
        start += count
    index = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    (directory / "sitemap_index.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n'
        f"{index}</sitemapindex>\n"
    )
    (directory / "robots.txt").write_text(
        f"User-agent: *\nDisallow: /admin/\n\nSitemap: {base}/sitemap_index.xml\n"
    )
    counts = expected(base, urls, children)
    (directory / "expected.json").write_text(json.dumps(counts, indent=2) + "\n")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--base", required=True, help="root URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--children", type=int, default=20)
    args = parser.parse_args()
    if args.children < 1 or args.urls < args.children:
        parser.error("need --children >= 1 and --urls >= --children")
    print(json.dumps(generate(args.directory, args.base.rstrip("/"), args.urls, args.children)))


if __name__ == "__main__":
    main()
