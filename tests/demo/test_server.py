"""The loopback server as `--serve DIR` runs it: a built folder, as a static host answers it."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import aiohttp

from auditor.demo.server import serve_folder


def built(folder: Path, *, not_found_page: bool = True) -> Path:
    site = folder / "public"
    (site / "about").mkdir(parents=True)
    (site / "index.html").write_text("<html><title>home</title></html>")
    (site / "about" / "index.html").write_text("<html><title>about</title></html>")
    (site / "sitemap.xml.gz").write_bytes(gzip.compress(b"<urlset/>"))
    if not_found_page:
        (site / "404.html").write_text("<html><title>not here</title></html>")
    (folder / "secret.txt").write_text("outside the folder")
    (site / "out").symlink_to(folder / "secret.txt")
    return site


async def get(base: str, path: str, *, method: str = "GET") -> tuple[int, str, bytes]:
    async with (
        aiohttp.ClientSession(auto_decompress=False) as session,
        session.request(method, base + path, allow_redirects=False) as answer,
    ):
        where = answer.headers.get("Location", answer.headers.get("Content-Type", ""))
        return answer.status, where, await answer.read()


async def test_files_folders_and_the_sites_404_page(tmp_path: Path) -> None:
    async with serve_folder(await asyncio.to_thread(built, tmp_path)) as base:
        assert (await get(base, "/"))[0] == 200
        status, kind, body = await get(base, "/about/")
        assert (status, kind.split(";")[0], b"about" in body) == (200, "text/html", True)
        assert (await get(base, "/about"))[:2] == (301, "/about/")  # a folder without its slash
        status, kind, body = await get(base, "/sitemap.xml.gz")
        assert (status, kind, gzip.decompress(body)) == (200, "application/gzip", b"<urlset/>")
        status, _, body = await get(base, "/gone/")
        assert (status, b"not here" in body) == (404, True)  # the generator's own 404 page
        assert (await get(base, "/about/", method="HEAD"))[::2] == (200, b"")
        assert (await get(base, "/", method="POST"))[0] == 405


async def test_nothing_outside_the_folder_is_served(tmp_path: Path) -> None:
    site = await asyncio.to_thread(built, tmp_path, not_found_page=False)
    async with serve_folder(site) as base:
        for path in ("/../secret.txt", "/%2e%2e/secret.txt", "/out", "/about/../../secret.txt"):
            status, _, body = await get(base, path)
            assert status == 404, path
            assert b"outside" not in body
