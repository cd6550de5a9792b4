"""URL patterns: Python's `re` against RE2 (auditor.checks.url_patterns), in one run.

    python benchmarks/pattern_bench.py [--urls 100000]

Prints, as JSON:
- `backtracking`: seconds `re` takes on `example\\.com/(\\w+/?)*$` against a URL of n letters and a
  `-` (n = 16 to 24: each letter more doubles it; 34 letters would be 2**10 times the last), and
  RE2's on 34 letters and on 8,192 (the longest value a sitemap's `<loc>` keeps);
- `search_ns`: nanoseconds per URL to search `--include`-like patterns in URLs of a shop, `re`
  (a pattern at a time, as `any(...)` would) and RE2 (auditor's UrlPatterns: one pass), and the
  ratio;
- `accept_file`: seconds and peak RSS to compile an accept file of 1,000 and 20,000 lines.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import time

from auditor.checks.url_patterns import UrlPatterns, check_pattern

_HOSTILE = r"example\.com/(\w+/?)*$"
_PATTERNS = (r"/products/", r"\.pdf$", r"^https://www\.example\.com/(de|fr)/", r"[?&]page=\d+")


def _seconds(function: object, *args: object) -> float:
    start = time.perf_counter()
    function(*args)  # type: ignore[operator]
    return time.perf_counter() - start


def backtracking() -> dict[str, float]:
    """Seconds per search of the hostile line, by engine and URL length."""
    python = re.compile(_HOSTILE)
    found = {
        f"re_{n}": _seconds(python.search, f"https://example.com/{'a' * n}-") for n in (16, 20, 24)
    }
    linear = UrlPatterns([_HOSTILE])
    for n in (34, 8192):
        found[f"re2_{n}"] = _seconds(linear.search, f"https://example.com/{'a' * n}-")
    return found


def search_ns(count: int) -> dict[str, float]:
    """Nanoseconds per URL: every pattern searched, `re` one by one, RE2 in one pass."""
    urls = [
        f"https://www.example.com/{('products', 'de', 'blog')[n % 3]}/item-{n}?page={n % 7}"
        for n in range(count)
    ]
    python = [re.compile(pattern) for pattern in _PATTERNS]
    linear = UrlPatterns(_PATTERNS)
    start = time.perf_counter()
    hits_re = sum(any(p.search(url) for p in python) for url in urls)
    re_ns = (time.perf_counter() - start) / count * 1e9
    start = time.perf_counter()
    hits_re2 = sum(linear.search(url) for url in urls)
    re2_ns = (time.perf_counter() - start) / count * 1e9
    assert hits_re == hits_re2, (hits_re, hits_re2)
    return {"re": round(re_ns), "re2": round(re2_ns), "ratio": round(re2_ns / re_ns, 1)}


def accept_file(lines: int) -> dict[str, float]:
    """Seconds and the process's peak RSS after compiling `lines` URL patterns."""
    patterns = [rf"https://www\.example\.com/legacy/page-{n}/" for n in range(lines)]
    start = time.perf_counter()
    for pattern in patterns:
        check_pattern(pattern)
    UrlPatterns(patterns)
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"lines": lines, "seconds": round(seconds, 2), "peak_rss_mb": round(peak_mb)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--urls", type=int, default=100_000)
    args = parser.parse_args()
    result = {
        "backtracking": backtracking(),
        "search_ns": search_ns(args.urls),
        "accept_file": [accept_file(1_000), accept_file(20_000)],
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
