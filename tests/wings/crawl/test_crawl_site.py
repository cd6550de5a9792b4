"""The crawl task's site (benchmarks/crawl_gen.py), crawled by the auditor: exactly its counts.

The benchmark holds the auditor's coverage to the generator's own breadth-first walk of its
links; this is that check, small, on loopback, on both transports.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import pytest

from auditor.demo.documents import Page
from auditor.demo.server import serve
from tests.helpers import run_audit

sys.path.insert(0, str(Path(__file__).parents[3] / "benchmarks"))

import crawl_gen

pytestmark = [pytest.mark.usefixtures("engine"), pytest.mark.slow]
PAGES = 1_500
_TYPES = {
    ".html": "text/html",
    ".xml": "application/xml",
    ".txt": "text/plain",
    ".json": "text/plain",
}


def served_folder(folder: Path) -> dict[str, Page]:
    """The generated files under the clean URLs nginx serves them at (try_files)."""
    routes: dict[str, Page] = {}
    for path in folder.rglob("*.*"):
        name = "/" + path.relative_to(folder).as_posix()
        if name.endswith("/index.html"):
            name = name.removesuffix("index.html")
        elif name.endswith(".html"):
            name = name.removesuffix(".html")
        routes[name] = Page(200, path.read_bytes(), {"Content-Type": _TYPES[path.suffix]})
    return routes


async def test_the_crawl_finds_what_the_generator_wrote(tmp_path: Path) -> None:
    site = tmp_path / "site"
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        base = f"http://127.0.0.1:{bound.getsockname()[1]}"
        site.mkdir()
        want = await asyncio.to_thread(crawl_gen.generate, site, base, PAGES)
        pages = await asyncio.to_thread(served_folder, site)
        async with serve(lambda _base: pages, bound=bound):
            audited = await run_audit(tmp_path, f"{base}/", no_check=False, crawl=True)
    coverage = audited.report["summary"]["coverage"]
    assert {key: coverage[key] for key in want.coverage()} == want.coverage()
    assert min(want.orphans, want.not_in_sitemap, want.deep) > 0  # the site has each of them
