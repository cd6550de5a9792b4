"""--state end to end: loopback sites answering conditional requests, and the runs against them."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.abc import AbstractStreamWriter

from auditor.clock import FixedClock
from auditor.config import AuditConfig
from auditor.demo.documents import sitemapindex, url, urlset
from auditor.demo.server import serve
from auditor.errors import ExitCode
from auditor.flow.audit import audit as run
from auditor.flow.ticker import Progress
from auditor.sitemap.state_file import StateEntry, body_name, is_body_name, parse_state
from auditor.sitemap.state_store import StateStore, body_folder
from tests.helpers import NOW, Audited, Report, run_audit, target

MODIFIED = "Mon, 23 Nov 2026 10:00:00 GMT"


@dataclass(frozen=True)
class Answer:
    """One sitemap answer, as the server's log has it."""

    path: str
    status: int
    body_bytes: int  # bytes of body sent
    conditional: bool  # the request carried If-None-Match or If-Modified-Since


class Site:
    """Sitemaps answering conditional requests by hand (RFC 9110 §13.1.1, §13.1.3).

    `/index.xml` lists an XML sitemap, a text one, a gzip file and one gzipped in transport.
    """

    def __init__(self, *, etag: bool = True, last_modified: bool = True) -> None:
        self.etag = etag
        self.last_modified = last_modified
        self.modified: dict[str, str] = {}
        self.children = ["a.xml", "b.txt", "c.xml.gz", "d.xml"]
        self.pages = {"a.xml": ["p1", "p2", "p2"], "c.xml.gz": ["c1"], "d.xml": ["d1", "d2"]}
        self.log: list[Answer] = []
        self.base = ""

    def body(self, name: str) -> tuple[bytes, dict[str, str]]:
        base = self.base
        if name == "index.xml":
            text = sitemapindex([f"{base}/{child}" for child in self.children])
            return text.encode(), {"Content-Type": "application/xml"}
        if name == "b.txt":
            return f"{base}/t1\n{base}/t2\nnot a url\n".encode(), {"Content-Type": "text/plain"}
        # a bad lastmod and a duplicate: findings the stored copy must give again
        entries = [url(f"{base}/{page}", lastmod="yesterday") for page in self.pages[name]]
        body = urlset(entries).encode()
        if name == "c.xml.gz":
            return gzip.compress(body, mtime=0), {"Content-Type": "application/gzip"}
        if name == "d.xml":
            headers = {"Content-Type": "application/xml", "Content-Encoding": "gzip"}
            return gzip.compress(body, mtime=0), headers
        return body, {"Content-Type": "application/xml"}

    def routes(self, base: str) -> dict[str, Any]:
        self.base = base
        names = ["index.xml", "a.xml", "b.txt", "c.xml.gz", "d.xml"]
        return {f"/{name}": self._answer for name in names}

    async def _answer(self, request: web.Request) -> web.StreamResponse:
        name = request.path.removeprefix("/")
        body, headers = self.body(name)
        validators = {}
        if self.etag:
            validators["ETag"] = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
        if self.last_modified:
            validators["Last-Modified"] = self.modified.get(name, MODIFIED)
        asked_tag = request.headers.get("If-None-Match")
        asked_date = request.headers.get("If-Modified-Since")
        # RFC 9110 §13.2.2: If-None-Match decides when present; else If-Modified-Since.
        fresh = (
            asked_tag == validators.get("ETag")
            if asked_tag is not None
            else asked_date is not None and asked_date == validators.get("Last-Modified")
        )
        conditional = asked_tag is not None or asked_date is not None
        if fresh:
            self.log.append(Answer(request.path, 304, 0, conditional))
            return web.Response(status=304, headers=validators)
        self.log.append(Answer(request.path, 200, len(body), conditional))
        return web.Response(body=body, headers={**headers, **validators})

    def answers(self) -> dict[str, Answer]:
        """The answers of the run just made, by path; the log starts again."""
        found = {answer.path: answer for answer in self.log}
        assert len(found) == len(self.log), self.log  # each sitemap asked for once a run
        self.log.clear()
        return found


def statuses(answers: dict[str, Answer]) -> dict[str, tuple[int, bool]]:
    """path -> (status, whether the request was conditional)."""
    return {path: (answer.status, answer.conditional) for path, answer in answers.items()}


def same_reading(first: Audited, second: Audited) -> None:
    """The two runs found the same entries, findings and checks (timing and 304s apart)."""

    def strip(records: list[Report], key: str, drop: set[str]) -> list[Report]:
        kept = [{k: v for k, v in record.items() if k not in drop} for record in records]
        return sorted(kept, key=lambda record: record[key])

    sitemap_drop = {"elapsed_ms", "status", "from_state"}
    for report in (first.report, second.report):
        report["summary"].pop("duration_s")
        report["summary"].pop("urls_per_s")
    assert strip(first.report["sitemaps"], "url", sitemap_drop) == strip(
        second.report["sitemaps"], "url", sitemap_drop
    )
    assert strip(first.report["urls"], "loc", {"elapsed_ms"}) == strip(
        second.report["urls"], "loc", {"elapsed_ms"}
    )
    assert first.report["summary"] == second.report["summary"]


def read_state(path: Path) -> dict[str, StateEntry]:
    return parse_state(path.read_bytes())


def kept_files(path: Path) -> set[str]:
    folder = body_folder(path)
    return {file.name for file in folder.iterdir()} if folder.exists() else set()


async def audit(tmp_path: Path, base: str, name: str, **settings: Any) -> Audited:
    return await run_audit(
        tmp_path, f"{base}/index.xml", json=tmp_path / f"{name}.json", **settings
    )


SITEMAPS = {"/index.xml", "/a.xml", "/b.txt", "/c.xml.gz", "/d.xml"}


@pytest.mark.parametrize("validators", ["etag", "last_modified", "both"])
async def test_an_unchanged_site_sends_no_sitemap_body(
    tmp_path: Path, validators: str, caplog: pytest.LogCaptureFixture
) -> None:
    site = Site(etag=validators != "last_modified", last_modified=validators != "etag")
    state = tmp_path / "audit.state"
    async with serve(site.routes) as served:
        first = await audit(tmp_path, served.base, "1", state=state)
        assert statuses(site.answers()) == dict.fromkeys(SITEMAPS, (200, False))
        second = await audit(tmp_path, served.base, "2", state=state)
        answers = site.answers()
    assert statuses(answers) == dict.fromkeys(SITEMAPS, (304, True))
    assert sum(answer.body_bytes for answer in answers.values()) == 0
    assert caplog.records == []  # no state yet is not a problem
    entries = read_state(state)
    assert set(entries) == {f"{served.base}{path}" for path in SITEMAPS}
    assert {entry.file for entry in entries.values()} == kept_files(state)
    for record in second.report["sitemaps"]:
        assert (record["status"], record["from_state"]) == (304, True), record
    assert all("from_state" not in record for record in first.report["sitemaps"])
    same_reading(first, second)
    assert second.sitemap("/c.xml.gz")["compressed"] is True
    assert second.sitemap("/d.xml")["compressed"] is False  # gzip in transport only
    assert second.codes()["lastmod.invalid"] > 0
    assert second.codes()["loc.duplicate"] == 1
    assert second.codes()["sitemap.invalid_text_line"] == 1


async def test_a_changed_sitemap_is_read_in_full_and_a_dropped_one_forgotten(
    tmp_path: Path,
) -> None:
    site = Site()
    state = tmp_path / "audit.state"
    async with serve(site.routes) as served:
        await audit(tmp_path, served.base, "1", state=state)
        before = read_state(state)
        site.pages["a.xml"] = ["p1", "p9"]  # a new body: a new ETag
        site.modified["a.xml"] = "Mon, 23 Nov 2026 11:00:00 GMT"
        site.children.remove("b.txt")
        site.answers()
        second = await audit(tmp_path, served.base, "2", state=state)
        answers = site.answers()
    base = served.base
    assert statuses(answers) == {
        "/index.xml": (200, True),
        "/a.xml": (200, True),
        "/c.xml.gz": (304, True),
        "/d.xml": (304, True),
    }
    locs = {entry["loc"] for entry in second.report["urls"]}
    assert f"{base}/p9" in locs
    assert f"{base}/p2" not in locs
    assert "from_state" not in second.sitemap("/a.xml")
    assert second.sitemap("/d.xml")["from_state"] is True
    after = read_state(state)
    assert set(after) == {f"{base}{path}" for path in SITEMAPS - {"/b.txt"}}
    assert after[f"{base}/a.xml"].etag != before[f"{base}/a.xml"].etag
    assert after[f"{base}/a.xml"].file != before[f"{base}/a.xml"].file
    assert {entry.file for entry in after.values()} == kept_files(state)  # old copies deleted


async def test_answers_without_validators_are_never_kept(tmp_path: Path) -> None:
    site = Site(etag=False, last_modified=False)
    state = tmp_path / "audit.state"
    async with serve(site.routes) as served:
        first = await audit(tmp_path, served.base, "1", state=state)
        site.answers()
        second = await audit(tmp_path, served.base, "2", state=state)
        answers = site.answers()
    assert statuses(answers) == dict.fromkeys(SITEMAPS, (200, False))
    assert read_state(state) == {}
    assert kept_files(state) == set()
    same_reading(first, second)


@pytest.mark.parametrize("damage", ["deleted", "truncated", "grown"])
async def test_a_damaged_copy_is_fetched_in_full_unconditionally(
    tmp_path: Path, damage: str
) -> None:
    site = Site()
    state = tmp_path / "audit.state"
    async with serve(site.routes) as served:
        first = await audit(tmp_path, served.base, "1", state=state)
        site.answers()
        copy = body_folder(state) / read_state(state)[f"{served.base}/a.xml"].file
        match damage:
            case "deleted":
                copy.unlink()
            case "truncated":
                copy.write_bytes(copy.read_bytes()[:-10])
            case "grown":
                copy.write_bytes(copy.read_bytes() + b"<!-- more -->")
        second = await audit(tmp_path, served.base, "2", state=state)
        answers = site.answers()
    assert statuses(answers) == {
        **dict.fromkeys(SITEMAPS, (304, True)),
        "/a.xml": (200, False),
    }
    same_reading(first, second)
    entry = read_state(state)[f"{served.base}/a.xml"]
    assert (body_folder(state) / entry.file).stat().st_size == entry.bytes  # kept anew


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"format": "sitemap-audit-state", "version": 99, "sitemaps": {}}',
        b"\xff\xfe\x00",
        b'{"format": "sitemap-audit-state", "version": 1, "sitemaps": {"x": {"file": "../x"}}}',
    ],
)
async def test_an_unusable_state_file_is_ignored_with_one_warning(
    tmp_path: Path, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    site = Site()
    state = tmp_path / "audit.state"
    state.write_bytes(content)
    async with serve(site.routes) as served:
        audited = await audit(tmp_path, served.base, "1", state=state)
        answers = site.answers()
    assert statuses(answers) == dict.fromkeys(SITEMAPS, (200, False))
    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert [record.name for record in warnings] == ["auditor.sitemap.state_store"]
    assert audited.report["complete"] is True
    assert len(read_state(state)) == len(SITEMAPS)  # replaced by a good one


@pytest.mark.slow
async def test_the_command_warns_in_one_line_and_runs(tmp_path: Path) -> None:
    site = Site()
    state = tmp_path / "audit.state"
    state.write_bytes(b"garbage")
    async with serve(site.routes) as served:
        argv = ["--no-check", "--allow-private", "--json", str(tmp_path / "r.json")]
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "auditor", *argv, "--state", str(state)],
            f"{served.base}/index.xml",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await process.communicate()
    assert process.returncode == ExitCode.FINDINGS  # the text sitemap's bad line
    assert len(err.decode().strip().splitlines()) == 1
    assert len(read_state(state)) == len(SITEMAPS)


async def test_a_304_never_asked_for_is_an_error(tmp_path: Path) -> None:
    async def not_modified(_: web.Request) -> web.StreamResponse:
        return web.Response(status=304, headers={"ETag": '"x"'})

    state = tmp_path / "audit.state"
    async with serve(lambda base: {"/s.xml": not_modified}) as served:
        for name in ("1", "2"):
            audited = await run_audit(
                tmp_path, f"{served.base}/s.xml", json=tmp_path / f"{name}.json", state=state
            )
            record = audited.sitemap("/s.xml")
            assert record["status"] == 304
            assert "from_state" not in record
            assert audited.sitemap_codes("/s.xml")["sitemap.http_error"] == 1
    assert read_state(state) == {}


async def test_a_redirected_sitemap_is_never_kept(tmp_path: Path) -> None:
    site = Site()
    site.pages["old.xml"] = ["o1"]
    moved = False

    async def old(request: web.Request) -> web.StreamResponse:
        if not moved:
            return await site._answer(request)
        conditional = "If-None-Match" in request.headers
        site.log.append(Answer(request.path, 301, 0, conditional))
        return web.Response(status=301, headers={"Location": f"{site.base}/a.xml"})

    def routes(base: str) -> dict[str, Any]:
        return {**site.routes(base), "/old.xml": old}

    state = tmp_path / "audit.state"
    async with serve(routes) as served:
        target = f"{served.base}/old.xml"
        await run_audit(tmp_path, target, json=tmp_path / "1.json", state=state)
        assert statuses(site.answers()) == {"/old.xml": (200, False)}
        assert set(read_state(state)) == {target}
        moved = True
        for name, conditional in (("2", True), ("3", False)):
            audited = await run_audit(tmp_path, target, json=tmp_path / f"{name}.json", state=state)
            # The validators go to the URL they came from, never to where it now leads.
            answers = statuses(site.answers())
            assert answers == {"/old.xml": (301, conditional), "/a.xml": (200, False)}
            assert "from_state" not in audited.sitemap("/old.xml")
            assert audited.sitemap_codes("/old.xml")["sitemap.redirected"] == 1
            assert read_state(state) == {}
            assert kept_files(state) == set()


async def test_an_incomplete_run_keeps_the_entries_it_did_not_reach(tmp_path: Path) -> None:
    path = tmp_path / "audit.state"
    a, b = "https://example.com/a.xml", "https://example.com/b.xml"

    async def keep(store: StateStore, url: str, body: bytes, etag: str) -> None:
        copy = store.copy()
        await copy.write(body)
        await store.keep(url, copy, {"ETag": etag})

    first = await StateStore.load(path, clock=FixedClock(NOW))
    await keep(first, a, b"<urlset/>", '"a1"')
    await keep(first, b, b"<urlset/>", '"b1"')
    await first.save(complete=True)
    second = await StateStore.load(path, clock=FixedClock(NOW))
    stored = await second.lookup(a)
    assert stored is not None
    await stored.close()
    await keep(second, a, b"<urlset></urlset>", '"a2"')
    await second.save(complete=False)  # interrupted before b was asked for: b stays
    entries = read_state(path)
    assert {url: entry.etag for url, entry in entries.items()} == {a: '"a2"', b: '"b1"'}
    assert {entry.file for entry in entries.values()} == kept_files(path)
    third = await StateStore.load(path, clock=FixedClock(NOW))
    stored = await third.lookup(a)
    assert stored is not None
    await stored.close()
    await third.save(complete=True)  # complete without b: b is gone
    assert set(read_state(path)) == {a}
    assert {entry.file for entry in read_state(path).values()} == kept_files(path)
    assert all(is_body_name(name) for name in kept_files(path))
    assert body_name(a, "0" * 16).split("-")[0] == read_state(path)[a].file.split("-")[0]


async def test_a_state_that_cannot_be_written_is_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    site = Site()
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    state = blocker / "audit.state"  # neither the file nor its folder can be made
    async with serve(site.routes) as served:
        audited = await audit(tmp_path, served.base, "1", state=state)
        assert statuses(site.answers()) == dict.fromkeys(SITEMAPS, (200, False))
    warnings = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert [record.name for record in warnings] == ["auditor.sitemap.state_store"]
    assert audited.report["complete"] is True
    assert audited.report["summary"]["sitemaps"] == len(SITEMAPS)


async def test_aiohttp_file_responses_answer_304_from_their_own_validators(
    tmp_path: Path,
) -> None:
    """aiohttp's FileResponse does conditional requests itself (ETag and Last-Modified)."""
    files = tmp_path / "site"
    files.mkdir()
    state = tmp_path / "audit.state"
    answered: list[int] = []

    def write(base: str) -> None:
        (files / "s.xml").write_text(urlset([url(f"{base}/p{n}") for n in range(3)]))
        (files / "g.txt.gz").write_bytes(gzip.compress(b"%s/g1\n" % base.encode(), mtime=0))
        (files / "index.xml").write_text(sitemapindex([f"{base}/s.xml", f"{base}/g.txt.gz"]))

    class Logged(web.FileResponse):
        async def prepare(self, request: web.BaseRequest) -> AbstractStreamWriter | None:
            writer = await super().prepare(request)
            answered.append(self.status)
            return writer

    def routes(base: str) -> dict[str, Any]:
        async def static(request: web.Request) -> web.StreamResponse:
            return Logged(files / request.path.removeprefix("/"))

        return {"/index.xml": static, "/s.xml": static, "/g.txt.gz": static}

    async with serve(routes) as served:
        await asyncio.to_thread(write, served.base)
        target = f"{served.base}/index.xml"
        first = await run_audit(tmp_path, target, json=tmp_path / "1.json", state=state)
        assert answered == [200, 200, 200]
        answered.clear()
        second = await run_audit(tmp_path, target, json=tmp_path / "2.json", state=state)
    assert answered == [304, 304, 304]
    assert second.report["summary"]["entries"] == first.report["summary"]["entries"] == 4
    assert all(record["from_state"] for record in second.report["sitemaps"])
    same_reading(first, second)


async def test_an_interrupted_run_updates_only_what_it_read(tmp_path: Path) -> None:
    site = Site()
    site.children = ["a.xml", "d.xml", "b.txt"]  # read in this order, one at a time
    hanging, stop = asyncio.Event(), asyncio.Event()
    hang = False

    async def d(request: web.Request) -> web.StreamResponse:
        if hang:
            hanging.set()
            await asyncio.Event().wait()  # never answers; the stopped run gives up on it
        return await site._answer(request)

    def routes(base: str) -> dict[str, Any]:
        return {**site.routes(base), "/d.xml": d}

    def on_progress(progress: Progress) -> None:
        if progress.sitemaps == 2 and hanging.is_set():  # the index and a.xml are read
            stop.set()

    state = tmp_path / "audit.state"
    async with serve(routes) as served:
        await audit(tmp_path, served.base, "1", state=state)
        before = read_state(state)
        site.pages["a.xml"] = ["p1", "p9"]
        hang = True
        config = AuditConfig(
            targets=(target(f"{served.base}/index.xml"),),
            json=tmp_path / "2.json",
            no_check=True,
            allow_private=True,
            state=state,
            sitemap_concurrency=1,
        )
        result = await run(config, clock=FixedClock(NOW), stop=stop, on_progress=on_progress)
    assert not result.complete
    after = read_state(state)
    index, a, d_url, b = (
        f"{served.base}/{name}" for name in ("index.xml", "a.xml", "d.xml", "b.txt")
    )
    assert after[index] == before[index]  # answered 304: its entry stands
    assert after[a].etag != before[a].etag  # read whole in the stopped run: updated
    assert after[d_url] == before[d_url]  # never answered: kept for the next run
    assert after[b] == before[b]  # never asked for: kept too (a complete run drops these)
    assert {entry.file for entry in after.values()} == kept_files(state)
