"""The crawl task's parse ceiling: lexbor (selectolax) over the site's pages, read from disk.

    python benchmarks/bare_links.py DIR

Every page the generator wrote is read and parsed, and its `<a href>` values taken, as the
auditor's crawl does (without the network, resolution or bookkeeping). Prints one JSON line: the
pages and the links.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    args = parser.parse_args()
    pages = links = 0
    for path in sorted(args.directory.rglob("*.html")):
        tree = LexborHTMLParser(path.read_bytes())
        links += sum(1 for node in tree.css("a[href]") if node.attributes.get("href"))
        pages += 1
    print(json.dumps({"pages": pages, "links": links}))


if __name__ == "__main__":
    main()
