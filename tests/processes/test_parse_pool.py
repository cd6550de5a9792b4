"""Parse helpers (--workers N with --no-check): the same entries, failures kept to one document."""

from __future__ import annotations

import asyncio
import gzip
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from auditor.codes import Code
from auditor.config import AuditConfig
from auditor.demo.documents import sitemapindex, url, urlset
from auditor.demo.server import DEMO_CA, serve_demo
from auditor.errors import ParseHelperError
from auditor.processes.parse_pool import ParsePool
from auditor.processes.shares import parse_helpers
from auditor.sitemap.parsers import BodyRead, parse_here
from auditor.sitemap.validated_entries import (
    DocumentSpec,
    PlainUrl,
    Validated,
    ValidatedSitemap,
    ValidatedUrl,
)
from auditor.urls import Scope, parse_http_url
from tests.helpers import NOW, run_audit, target

BASE = "https://example.com/sitemaps/"


def spec(**overrides: Any) -> DocumentSpec:
    here = parse_http_url(BASE + "a.xml")
    assert here is not None
    settings: dict[str, Any] = {
        "urlset_scope": Scope.of(here, with_folder=True),
        "index_scope": Scope.of(here, with_folder=False),
    }
    settings.update(overrides)
    return DocumentSpec(BASE + "a.xml", NOW, None, **{"max_bytes": 50 << 20, **settings})


def document(count: int) -> bytes:
    """A urlset with a finding of each kind the rules give, beside plain entries."""
    entries = [url(f"{BASE}p/{n}", lastmod="2024-01-01T00:00:00Z") for n in range(count)]
    entries += [
        url("https://example.com/elsewhere/x"),  # out of the sitemap's folder
        url("https://other.example/x"),  # another host: waivable by its robots.txt
        url(f"{BASE}bad", lastmod="2024-02-30"),
        url(f"{BASE}sp ace"),
        "<url><priority>2</priority></url>",
    ]
    return urlset(entries).encode()


def chunks_of(data: bytes, size: int = 5000) -> Callable[[], Awaitable[bytes]]:
    """A body read in `size` pieces, then b"" for ever."""
    pieces = [data[start : start + size] for start in range(0, len(data), size)]

    async def read() -> bytes:
        return pieces.pop(0) if pieces else b""

    return read


async def entries_of(
    parse: Callable[..., Awaitable[None]], spec_: DocumentSpec, data: bytes
) -> tuple[list[Validated], BodyRead]:
    got: list[Validated] = []

    async def handle(piece: list[Validated]) -> None:
        got.extend(piece)

    body = BodyRead()
    await parse(spec_, chunks_of(data), handle, body)
    return got, body


@pytest.fixture
async def pool() -> AsyncIterator[ParsePool]:
    async with ParsePool(1) as started:
        yield started


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("local", [False, True])
async def test_a_helper_gives_what_this_process_gives(
    pool: ParsePool, compress: bool, local: bool
) -> None:
    data = document(3000)
    data = gzip.compress(data) if compress else data
    here, here_body = await entries_of(parse_here, spec(local=local), data)
    async with pool.parser() as parse:
        assert parse is not parse_here  # the helper is taken first
        there, there_body = await entries_of(parse, spec(local=local), data)
    assert there == here
    assert (there_body.bytes, there_body.compressed, there_body.ended) == (
        here_body.bytes,
        compress,
        True,
    )
    urls = [entry for entry in there if isinstance(entry, ValidatedUrl | PlainUrl)]
    assert len(urls) == 3005
    judged = [entry for entry in urls if isinstance(entry, ValidatedUrl)]  # plain ones: none
    codes = {item.code for entry in judged for item in entry.findings}
    wanted = {Code.LOC_HOST_MISMATCH, Code.LASTMOD_INVALID, Code.LOC_NOT_ESCAPED}
    wanted |= {Code.LOC_MISSING, Code.PRIORITY_INVALID}
    # A local file's scope is its first URL's origin, without a folder.
    assert codes == wanted | ({Code.LOC_OUT_OF_SCOPE} if not local else set())
    # Off scope, an HTTP document's rule may be waived by the robots.txt of the URL's origin.
    waivable = {entry.waivable if isinstance(entry, ValidatedUrl) else None for entry in urls}
    origins = {"https://example.com", "https://other.example"}
    assert waivable == ({None} if local else {None, *origins})


async def test_an_index_is_checked_by_the_helper_too(pool: ParsePool) -> None:
    data = sitemapindex([BASE + "a.xml.gz", "https://other.example/b.xml", "ftp://x/y"])
    here, _ = await entries_of(parse_here, spec(), data.encode())
    async with pool.parser() as parse:
        there, _ = await entries_of(parse, spec(), data.encode())
    assert there == here
    keys = [entry.key for entry in there if isinstance(entry, ValidatedSitemap)]
    assert keys == ["https://example.com/sitemaps/a.xml.gz", "https://other.example/b.xml", None]


async def test_a_document_over_the_cap_stops_its_body_and_the_helper_goes_on(
    pool: ParsePool,
) -> None:
    reads = 0

    async def endless() -> bytes:
        nonlocal reads
        reads += 1
        return b"<urlset>" if reads == 1 else b"<!-- " + b"x" * 60_000 + b" -->"

    async def ignore(_piece: list[Validated]) -> None:
        pass

    capped = spec(max_bytes=1_000_000)
    body = BodyRead()
    async with pool.parser() as parse:
        await asyncio.wait_for(parse(capped, endless, ignore, body), timeout=10)
    assert not body.ended
    assert body.bytes == 1_000_000
    assert reads < 200  # it stopped asking for the body soon after the cap
    async with pool.parser() as parse:
        assert parse is not parse_here
        again, _ = await entries_of(parse, spec(), document(10))
    assert len(again) > 10


async def test_a_body_that_fails_is_the_documents_failure_not_the_helpers(
    pool: ParsePool,
) -> None:
    read = chunks_of(document(2000), 4000)
    calls = 0

    async def failing() -> bytes:
        nonlocal calls
        calls += 1
        if calls == 4:
            raise OSError("the connection broke")
        return await read()

    got: list[Validated] = []

    async def handle(piece: list[Validated]) -> None:
        got.extend(piece)

    body = BodyRead()
    async with pool.parser() as parse:
        with pytest.raises(OSError, match="the connection broke"):
            await parse(spec(), failing, handle, body)
    assert got  # what came before the failure was parsed and handled
    assert 0 < body.bytes < len(document(2000))
    async with pool.parser() as parse:
        assert parse is not parse_here  # the helper was given back
        again, _ = await entries_of(parse, spec(), document(10))
    assert len(again) > 10


async def test_a_helper_that_dies_fails_its_document_and_this_process_parses_on() -> None:
    dying = (sys.executable, "-c", "import sys; sys.stdin.buffer.read(100)")
    async with ParsePool(1, command=dying) as pool:
        async with pool.parser() as parse:
            assert parse is not parse_here
            with pytest.raises(ParseHelperError):
                await entries_of(parse, spec(), document(2000))
        async with pool.parser() as parse:
            assert parse is parse_here  # the dead helper is not given out again
            got, _ = await entries_of(parse, spec(), document(10))
    assert len(got) > 10


async def test_with_one_helper_this_process_takes_one_document_in_three() -> None:
    """It handles every helper's entries too: taking more would leave the helper waiting."""
    async with ParsePool(1) as pool:
        helper = pool.parser()
        assert await helper.__aenter__() is not parse_here
        here = pool.parser()
        assert await here.__aenter__() is parse_here  # the helper is busy
        await here.__aexit__(None, None, None)
        # Free again, but it took one of two: the next reader waits for the helper.
        third = pool.parser()
        waiting = asyncio.ensure_future(third.__aenter__())
        await asyncio.sleep(0.05)
        assert not waiting.done()
        await helper.__aexit__(None, None, None)
        assert await waiting is not parse_here
        fourth = pool.parser()
        assert await fourth.__aenter__() is parse_here  # one in three
        await fourth.__aexit__(None, None, None)
        await third.__aexit__(None, None, None)


async def test_a_stopped_document_ends_its_helper() -> None:
    forever = asyncio.Event()

    async def slow() -> bytes:
        await forever.wait()
        return b""

    async def ignore(_piece: list[Validated]) -> None:
        pass

    async with ParsePool(1) as pool:
        process = pool._helpers[0].process  # the process a stop must end

        async def read_one() -> None:
            async with pool.parser() as parse:
                await parse(spec(), slow, ignore, BodyRead())

        reading = asyncio.create_task(read_one())
        await asyncio.sleep(0.2)
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
    assert process.returncode is not None


def test_helpers_only_parse_when_no_checker_process_needs_the_cores() -> None:
    config = AuditConfig(targets=(target("https://example.com/"),), workers=4, no_check=True)
    assert parse_helpers(config) == 4
    assert parse_helpers(AuditConfig(targets=config.targets, workers=4)) == 0
    assert parse_helpers(AuditConfig(targets=config.targets, no_check=True)) == 0


async def test_a_parse_helper_loads_nothing_it_does_not_use() -> None:
    """Each helper is a whole process (hreflang benchmark: its RSS counts N times): asyncio
    (with ssl), hashlib's OpenSSL, email and importlib.resources cost it 9.5 MB, for nothing."""
    probe = "import sys, auditor.processes.parse_child as c; print(sorted(set(sys.modules) & {m}))"
    unused = {"asyncio", "ssl", "hashlib", "_hashlib", "email.utils", "importlib.resources"}
    command = probe.format(m=unused)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", command, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await process.communicate()
    assert process.returncode == 0
    assert out.decode().strip() == "[]"


async def test_parse_helpers_give_the_same_report_as_one_process(tmp_path: Path) -> None:
    async with serve_demo() as sites:
        settings: dict[str, Any] = {"allow_private": False, "ca_file": DEMO_CA}
        one = await run_audit(tmp_path / "one", *sites, workers=1, **settings)
        three = await run_audit(tmp_path / "three", *sites, workers=3, **settings)

    def sitemaps(report: dict[str, Any]) -> dict[str, Any]:
        return {
            item["url"]: (
                item["kind"],
                item["url_count"],
                item["bytes"],
                item["compressed"],
                # Which of two sitemaps listing a URL is read first is the readers' race.
                sorted(f["code"] for f in item["findings"] if f["code"] != "loc.duplicate"),
            )
            for item in report["sitemaps"]
        }

    assert sorted(three.url_codes()) == sorted(one.url_codes())
    assert sitemaps(three.report) == sitemaps(one.report)
    for key in ("sitemaps", "urls", "entries", "by_code"):
        assert three.report["summary"][key] == one.report["summary"][key]
    assert one.report["summary"]["urls"] > 30
