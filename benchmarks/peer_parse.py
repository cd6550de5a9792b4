"""The parse peers, run by the peers' venv (benchmarks/.venv-peers): count what each one finds.

    .venv-peers/bin/python benchmarks/peer_parse.py usp BASE
    .venv-peers/bin/python benchmarks/peer_parse.py advertools BASE

usp: ultimate-sitemap-parser's sitemap_tree_for_homepage(BASE/) from robots.txt only (no known
paths probed: the auditor and the bare loop probe none either), then all_pages().
advertools: sitemap_to_df(BASE/robots.txt), which reads every sitemap robots.txt names, the
index's children included, into one DataFrame. Prints {"urls": N, ...} as JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
import warnings


def usp(base: str) -> dict[str, object]:
    from usp.tree import (  # type: ignore[import-not-found]  # noqa: PLC0415 - peers' venv
        sitemap_tree_for_homepage,
    )

    tree = sitemap_tree_for_homepage(f"{base}/", use_robots=True, use_known_paths=False)
    sitemaps = sum(1 for _ in tree.all_sitemaps())
    return {"urls": sum(1 for _ in tree.all_pages()), "sitemaps": sitemaps}


def advertools(base: str) -> dict[str, object]:
    import advertools as adv  # type: ignore[import-not-found]  # noqa: PLC0415 - peers' venv

    frame = adv.sitemap_to_df(f"{base}/robots.txt")
    locs = frame["loc"].notna().sum() if "loc" in frame else 0
    sitemaps = frame["sitemap"].nunique() if "sitemap" in frame else 0
    return {"urls": int(locs), "rows": len(frame), "sitemaps": int(sitemaps)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("peer", choices=("usp", "advertools"))
    parser.add_argument("base")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # both log every document read
    warnings.simplefilter("ignore")
    started = time.perf_counter()
    answer = (usp if args.peer == "usp" else advertools)(args.base.rstrip("/"))
    print(json.dumps(answer | {"inner_s": time.perf_counter() - started}))


if __name__ == "__main__":
    main()
