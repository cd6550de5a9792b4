"""The crawl task's site: pages linking to each other as a shop's do, and the exact coverage.

    python benchmarks/crawl_gen.py DIR --base http://127.0.0.1:PORT --pages N

A home page linking every category; categories of 50 items a page, paginated (previous, next,
and the pages two either side); items with a navigation block (home and 20 categories), a
breadcrumb, 5 to 40 related items and a footer: 20 to 100 links a page, about 15 KB each. Some
items are linked from nowhere but listed (orphans), some linked and not listed, some noindex
(and not listed, rightly), some link to a page that is gone (404), and every category links a
sorted variant of itself (`?sort=price`) whose canonical is the category. robots.txt disallows
/cart/, which every item links to. The sitemaps list the home page, the footer pages, each
category's first page and the items but the unlisted and noindex ones. The generator walks its
own link graph breadth first and writes expected.json: the counts the auditor's --crawl must
give (coverage and finding codes) and the pages a crawler requests.
"""

from __future__ import annotations

import argparse
import json
from collections import deque
from dataclasses import asdict, dataclass
from pathlib import Path

FORMAT = 1  # bump when the generated files change
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
PER_PAGE = 50
NAV_CATEGORIES = 20
FOOTER = ("/about", "/contact", "/privacy", "/terms", "/help")
DEEP_CLICKS = 3  # the auditor's default --deep-clicks
PER_SITEMAP = 50_000
_WORDS = (
    *("garden", "tools", "lamp", "chair", "walnut", "steel", "linen", "cotton", "blue", "green"),
    *("amber", "sturdy", "light", "compact", "delivery", "warranty", "returns", "size", "colour"),
    *("stock", "review", "rating", "price", "offer", "craft", "made", "local"),
)


def orphan(n: int) -> bool:
    """Listed, linked from nowhere."""
    return n % 97 == 13


def unlisted(n: int) -> bool:
    """Linked, indexable, in no sitemap."""
    return n % 89 == 7 and not orphan(n)


def noindex(n: int) -> bool:
    """Linked, noindex, in no sitemap (rightly)."""
    return n % 151 == 3 and not orphan(n) and not unlisted(n)


def broken(n: int) -> bool:
    """Links a page that is gone (404)."""
    return n % 211 == 5


def categories_of(pages: int) -> int:
    return max(1, min(200, pages // 1000))


def category_items(pages: int) -> list[list[int]]:
    """The items each category lists (orphans in none), in order."""
    cats = categories_of(pages)
    lists: list[list[int]] = [[] for _ in range(cats)]
    for n in range(pages):
        if not orphan(n):
            lists[n % cats].append(n)
    return lists


def related(n: int, pages: int) -> list[int]:
    """5 to 40 other items, never an orphan."""
    count = 5 + n * 7 % 36
    found = []
    for i in range(1, count + 1):
        m = (n * 31 + i * 7919) % pages
        if m != n and not orphan(m):
            found.append(m)
    return found


def positions(lists: list[list[int]]) -> dict[int, int]:
    """Each item's place in its category's list."""
    return {n: i for items in lists for i, n in enumerate(items)}


def category_url(k: int, page: int) -> str:
    return f"/c/{k}/" if page == 1 else f"/c/{k}/{page}"


def links_of(
    path: str, pages: int, lists: list[list[int]], places: dict[int, int] | None = None
) -> list[str]:
    """Every <a href> of a page, in document order (the navigation first).

    `places`: each listed item's place in its category (computed when not given).
    """
    path = path.split("?", 1)[0]  # the sorted variant is the category's page itself
    cats = len(lists)
    nav = ["/", *(category_url(k, 1) for k in range(min(cats, NAV_CATEGORIES)))]
    footer = list(FOOTER)
    if path == "/":
        return [*nav, *(category_url(k, 1) for k in range(cats)), *footer]
    if path.startswith("/c/"):
        parts = path.strip("/").split("/")
        k, page = int(parts[1]), int(parts[2]) if len(parts) > 2 else 1
        items = lists[k]
        last = max(1, -(-len(items) // PER_PAGE))
        shown = items[(page - 1) * PER_PAGE : page * PER_PAGE]
        pager = [category_url(k, p) for p in range(max(1, page - 2), min(last, page + 2) + 1)]
        sort = [f"/c/{k}/?sort=price"] if page == 1 else []
        return [*nav, *sort, *(f"/i/{m}" for m in shown), *pager, *footer]
    if path.startswith("/i/"):
        n = int(path.rsplit("/", 1)[1])
        k = n % cats
        position = (places or positions(lists)).get(n, 0)
        crumbs = ["/", category_url(k, position // PER_PAGE + 1)]
        gone = [f"/gone/{n}"] if broken(n) else []
        rel = [f"/i/{m}" for m in related(n, pages)]
        return [*nav, *crumbs, *rel, *gone, f"/cart/{n}", *footer]
    return [*nav, *footer]  # the footer pages


def page_html(path: str, links: list[str], *, base: str, robots: str | None) -> str:
    seed = sum(map(ord, path))
    text = " ".join(_WORDS[(seed + i * 7) % len(_WORDS)] for i in range(1200))
    anchors = "\n".join(
        f'<li><a href="{href}">{href.strip("/") or "home"}</a></li>' for href in links
    )
    meta = f'<meta name="robots" content="{robots}">' if robots else ""
    canonical = base + path.split("?", 1)[0]
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        f'<title>{path}</title>{meta}<link rel=canonical href="{canonical}">'
        "<style>body{font:16px/1.5 sans-serif;margin:0}nav ul{display:flex;gap:1em}"
        ".grid{display:grid;grid-template-columns:repeat(4,1fr)}</style>"
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"WebPage"}'
        "</script></head>\n<body><header><nav><ul>\n"
        f"{anchors}\n</ul></nav></header>\n<main><h1>{path}</h1><p>{text}</p></main>\n"
        "<footer><p>A shop.</p></footer></body></html>\n"
    )


@dataclass(frozen=True, slots=True)
class CrawlExpected:
    """What the site holds, and what a crawl of it must count."""

    format: int
    base: str
    pages: int  # items
    crawled: int  # URLs a crawler requests (robots.txt obeyed)
    listed: int
    crawled_and_listed: int
    crawled_only: int
    listed_only: int
    not_in_sitemap: int
    orphans: int
    deep: int
    blocked: int
    depth: int  # the deepest page
    files: int  # pages written (the bare parse loop's count)

    def coverage(self) -> dict[str, object]:
        """What a crawl's `summary.coverage` must say of this site."""
        counts = "crawled crawled_and_listed crawled_only listed_only not_in_sitemap orphans deep"
        counts += " blocked depth"
        return {"complete": True} | {name: getattr(self, name) for name in counts.split()}


def site_paths(pages: int, lists: list[list[int]]) -> list[str]:
    """Every page that exists (404s aside): home, footer, categories, variants, items."""
    paths = ["/", *FOOTER]
    for k, items in enumerate(lists):
        last = max(1, -(-len(items) // PER_PAGE))
        paths += [category_url(k, p) for p in range(1, last + 1)]
    paths += [f"/i/{n}" for n in range(pages)]
    return paths


def listed_paths(pages: int, lists: list[list[int]]) -> list[str]:
    paths = ["/", *FOOTER, *(category_url(k, 1) for k in range(len(lists)))]
    return paths + [f"/i/{n}" for n in range(pages) if not (unlisted(n) or noindex(n))]


def expected(base: str, pages: int) -> CrawlExpected:
    """The counts, by a breadth-first walk of the site's own links. Pure."""
    lists = category_items(pages)
    places = positions(lists)
    depth: dict[str, int] = {"/": 0}
    todo = deque(["/"])
    blocked = 0
    while todo:
        path = todo.popleft()
        if path.startswith("/gone/"):
            continue  # a 404: requested, no page
        for href in links_of(path, pages, lists, places):
            if href in depth:
                continue
            depth[href] = depth[path] + 1
            if href.startswith("/cart/"):
                blocked += 1
                continue
            todo.append(href)
    crawled = {path for path in depth if not path.startswith("/cart/")}
    listed = set(listed_paths(pages, lists))
    indexable_only = {
        path
        for path in crawled - listed
        if not path.startswith("/gone/") and "?" not in path
        and not (path.startswith("/i/") and noindex(int(path[3:])))
    }  # fmt: skip
    return CrawlExpected(
        format=FORMAT,
        base=base,
        pages=pages,
        crawled=len(crawled),
        listed=len(listed),
        crawled_and_listed=len(crawled & listed),
        crawled_only=len(crawled - listed),
        listed_only=len(listed - crawled),
        not_in_sitemap=len(indexable_only),
        orphans=len(listed - set(depth)),
        deep=sum(1 for path in listed & crawled if depth[path] > DEEP_CLICKS),
        blocked=blocked,
        depth=max(depth[path] for path in crawled),
        files=len(site_paths(pages, lists)),
    )


def generate(directory: Path, base: str, pages: int) -> CrawlExpected:
    """Write the site under `directory` (an nginx root); expected.json last."""
    (directory / "expected.json").unlink(missing_ok=True)
    lists = category_items(pages)
    places = positions(lists)
    for path in site_paths(pages, lists):
        n = int(path[3:]) if path.startswith("/i/") else -1
        robots = "noindex" if n >= 0 and noindex(n) else None
        html = page_html(path, links_of(path, pages, lists, places), base=base, robots=robots)
        file = directory / (
            path.strip("/") + "/index.html" if path.endswith("/") else path[1:] + ".html"
        )
        if path == "/":
            file = directory / "index.html"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(html)
    listed = listed_paths(pages, lists)
    children = []
    for start in range(0, len(listed), PER_SITEMAP):
        name = f"sitemap-{start // PER_SITEMAP + 1}.xml"
        body = "".join(
            f"<url><loc>{base}{path}</loc></url>\n" for path in listed[start : start + PER_SITEMAP]
        )
        (directory / name).write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'
        )
        children.append(name)
    index = "".join(f"<sitemap><loc>{base}/{name}</loc></sitemap>\n" for name in children)
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n'
    (directory / "sitemap_index.xml").write_text(f"{head}{index}</sitemapindex>\n")
    (directory / "robots.txt").write_text(
        f"User-agent: *\nDisallow: /cart/\n\nSitemap: {base}/sitemap_index.xml\n"
    )
    counts = expected(base, pages)
    (directory / "expected.json").write_text(json.dumps(asdict(counts), indent=2) + "\n")
    return counts


def load_expected(directory: Path) -> CrawlExpected | None:
    path = directory / "expected.json"
    if not path.exists():
        return None
    raw = json.loads(path.read_text())
    return CrawlExpected(**raw) if raw.get("format") == FORMAT else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--base", required=True)
    parser.add_argument("--pages", type=int, default=100_000)
    args = parser.parse_args()
    print(json.dumps(asdict(generate(args.directory, args.base.rstrip("/"), args.pages))))


if __name__ == "__main__":
    main()
