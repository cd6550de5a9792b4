"""The suite's synthetic site: which URL answers what, the tree's files, and the exact counts.

    python benchmarks/site_gen.py DIR --base http://127.0.0.1:PORT --urls N [--children 20]

URL n of the tree is, by n % 1000 (and n // 1000 for the rare kinds):
  0-19   /e404/n   404                                       (2%)
  20-24  /e500/n   500                                       (0.5%)
  25-48  /rHK/n    a redirect chain of H = 1, 2 or 3 hops to /p/n, K = p (301) or t (302)
  49     /loop/a/n a 302 loop (/loop/a/n -> /loop/b/n -> /loop/a/n), one in ten thousand
  50     http://localhost:PORT/p/n, 200: another host than the sitemap's, one in two thousand
  else   /p/n      200, a small HTML page
Most children are gzipped (sitemaps/sitemap-NN.xml.gz, served as plain files); one in five
is plain XML. expected.json (written last: a tree with it is complete) holds the counts every
tool should give; `expected_counts()` computes them without writing anything.
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path
from typing import assert_never

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XML_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
FORMAT = 3  # bump when the generated files change, so that cached trees are regenerated
PLAIN_EVERY = 5  # children 5, 10, 15, 20 are plain XML; the others gzipped
OFF_HOST = "localhost"  # the same server under another name: listed URLs on "another host"
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
_FREQS = ("daily", "weekly", "monthly")


class Kind(StrEnum):
    """What a listed URL answers."""

    PAGE = "page"
    NOT_FOUND = "404"
    SERVER_ERROR = "500"
    REDIRECT = "redirect"
    LOOP = "loop"
    OFF_HOST = "off_host"


def kind_of(n: int) -> Kind:
    """The kind of the n-th URL of the tree. Pure."""
    slot, block = n % 1000, n // 1000
    if slot < 20:
        return Kind.NOT_FOUND
    if slot < 25:
        return Kind.SERVER_ERROR
    if slot < 49:
        return Kind.REDIRECT
    if slot == 49 and block % 10 == 0:
        return Kind.LOOP
    if slot == 50 and block % 2 == 0:
        return Kind.OFF_HOST
    return Kind.PAGE


def redirect_shape(n: int) -> tuple[int, bool]:
    """(hops, permanent) of the n-th URL, a redirect. Pure."""
    step = n % 1000 - 25
    return 1 + step % 3, step < 12


def url_of(base: str, n: int) -> str:
    """The n-th listed URL (`base` is http://127.0.0.1:PORT). Pure."""
    match kind_of(n):
        case Kind.PAGE:
            return f"{base}/p/{n}"
        case Kind.NOT_FOUND:
            return f"{base}/e404/{n}"
        case Kind.SERVER_ERROR:
            return f"{base}/e500/{n}"
        case Kind.REDIRECT:
            hops, permanent = redirect_shape(n)
            return f"{base}/r{hops}{'p' if permanent else 't'}/{n}"
        case Kind.LOOP:
            return f"{base}/loop/a/{n}"
        case Kind.OFF_HOST:
            scheme, port = base.split(":", 1)[0], base.rsplit(":", 1)[1]
            return f"{scheme}://{OFF_HOST}:{port}/p/{n}"
        case _:
            assert_never(kind_of(n))


@dataclass(frozen=True, slots=True)
class Expected:
    """What a tree holds, and what each tool should count on it."""

    format: int
    base: str
    urls: int
    children: int
    gzipped: int
    sitemaps: int  # documents the auditor reads: robots.txt, the index, the children
    kinds: dict[str, int]
    by_status_class: dict[str, int]  # the listed URL's own answer (a redirect is 3xx)
    by_code: dict[str, int]  # the auditor's findings with checks
    by_code_no_check: dict[str, int]  # ... and with --no-check
    final_ok: int  # URLs whose chain ends on a 200 (pages, off-host pages, redirect chains)
    final_errors: int  # 404s, 500s and loops
    redirect_hops: int  # hops of all chains (loops left out)


def no_tree(urls: int) -> Expected:
    """For a task that serves no tree (the diff task's reports): its size, no counts. Pure."""
    return Expected(FORMAT, "", urls, 0, 0, 0, {}, {}, {}, {}, 0, 0, 0)


def expected_counts(base: str, urls: int, children: int) -> Expected:
    """The exact counts of the tree these parameters make. Pure."""
    kinds: Counter[Kind] = Counter()
    permanent = temporary = chains = hops_total = 0
    for n in range(urls):
        kind = kind_of(n)
        kinds[kind] += 1
        if kind is Kind.REDIRECT:
            hops, is_permanent = redirect_shape(n)
            permanent += is_permanent
            temporary += not is_permanent
            chains += hops > 1
            hops_total += hops
    found: Counter[str] = Counter(
        {
            "http.not_found": kinds[Kind.NOT_FOUND],
            "http.server_error": kinds[Kind.SERVER_ERROR],
            "redirect.permanent": permanent,
            "redirect.temporary": temporary,
            "redirect.chain": chains,
            "redirect.loop": kinds[Kind.LOOP],
            "loc.host_mismatch": kinds[Kind.OFF_HOST],
        }
    )
    classes = Counter(
        {
            "2xx": kinds[Kind.PAGE] + kinds[Kind.OFF_HOST],
            "3xx": kinds[Kind.REDIRECT] + kinds[Kind.LOOP],
            "4xx": kinds[Kind.NOT_FOUND],
            "5xx": kinds[Kind.SERVER_ERROR],
        }
    )
    return Expected(
        format=FORMAT,
        base=base,
        urls=urls,
        children=children,
        gzipped=children - children // PLAIN_EVERY,
        sitemaps=children + 2,
        kinds={kind.value: kinds[kind] for kind in Kind},
        by_status_class={key: n for key, n in sorted(classes.items()) if n},
        by_code={key: n for key, n in sorted(found.items()) if n},
        by_code_no_check={"loc.host_mismatch": kinds[Kind.OFF_HOST]}
        if kinds[Kind.OFF_HOST]
        else {},
        final_ok=kinds[Kind.PAGE] + kinds[Kind.OFF_HOST] + kinds[Kind.REDIRECT],
        final_errors=kinds[Kind.NOT_FOUND] + kinds[Kind.SERVER_ERROR] + kinds[Kind.LOOP],
        redirect_hops=hops_total,
    )


def url_entry(base: str, n: int) -> str:
    """The n-th <url>: every one has a lastmod (in the past), some a changefreq and a priority."""
    when = _EPOCH + timedelta(minutes=n)
    lastmod = when.strftime("%Y-%m-%d") if n % 2 else when.strftime("%Y-%m-%dT%H:%M:%SZ")
    extra = f"<changefreq>{_FREQS[n % 3]}</changefreq>" if n % 3 == 0 else ""
    extra += f"<priority>{n // 5 % 11 / 10:.1f}</priority>" if n % 5 == 0 else ""
    return f"<url><loc>{url_of(base, n)}</loc><lastmod>{lastmod}</lastmod>{extra}</url>\n"


def child_name(k: int, children: int) -> str:
    """The k-th child's path (k from 1): plain XML one in PLAIN_EVERY, else gzipped."""
    width = len(str(children))
    suffix = ".xml" if k % PLAIN_EVERY == 0 else ".xml.gz"
    return f"sitemaps/sitemap-{k:0{width}d}{suffix}"


def generate(directory: Path, base: str, urls: int, children: int) -> Expected:
    """Write the tree under `directory` (urls.txt too: the URL list lychee is given)."""
    (directory / "expected.json").unlink(missing_ok=True)
    (directory / "sitemaps").mkdir(parents=True, exist_ok=True)
    per_child, extra = divmod(urls, children)
    start = 0
    names = []
    with (directory / "urls.txt").open("w") as listing:
        for k in range(1, children + 1):
            count = per_child + (k <= extra)
            numbers = range(start, start + count)
            body = "".join(url_entry(base, n) for n in numbers)
            data = f'{XML_HEAD}<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()
            name = child_name(k, children)
            if name.endswith(".gz"):
                data = gzip.compress(data, compresslevel=6, mtime=0)  # mtime=0: the same bytes
            (directory / name).write_bytes(data)
            listing.writelines(url_of(base, n) + "\n" for n in numbers)
            names.append(name)
            start += count
    index = "".join(f"<sitemap><loc>{base}/{name}</loc></sitemap>\n" for name in names)
    (directory / "sitemap_index.xml").write_text(
        f'{XML_HEAD}<sitemapindex xmlns="{NS}">\n{index}</sitemapindex>\n'
    )
    (directory / "robots.txt").write_text(
        f"User-agent: *\nDisallow: /admin/\n\nSitemap: {base}/sitemap_index.xml\n"
    )
    # The other host's robots.txt names no sitemap: its URLs listed here stay off-host.
    (directory / "robots-other.txt").write_text("User-agent: *\nDisallow: /admin/\n")
    counts = expected_counts(base, urls, children)
    (directory / "expected.json").write_text(json.dumps(asdict(counts), indent=2) + "\n")
    return counts


def load_expected(directory: Path) -> Expected | None:
    """The tree's expected.json, or None when there is none (or an older format)."""
    path = directory / "expected.json"
    if not path.exists():
        return None
    raw = json.loads(path.read_text())
    if raw.get("format") != FORMAT:
        return None
    return Expected(**raw)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--base", required=True, help="root URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--children", type=int, default=20)
    args = parser.parse_args()
    if args.children < 1 or args.urls < args.children:
        parser.error("need --children >= 1 and --urls >= --children")
    counts = generate(args.directory, args.base.rstrip("/"), args.urls, args.children)
    print(json.dumps(asdict(counts)))


if __name__ == "__main__":
    main()
