"""Read one sitemap document, the fetch side: open it (a file, a request, a kept copy), stream it.

The body goes to a parser (this process's, or a parse helper's: auditor.sitemap.parsers), whose
validated entries go to the entry side (auditor.sitemap.document_entries); the document's own
record goes out at its end.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, replace

from auditor.codes import Code
from auditor.discovery.robots import RobotsTxt, robots_detail
from auditor.errors import FetchError
from auditor.files import LocalFile
from auditor.models import AlreadyRead, Finding, FoundBy, Relisted, SitemapRecord, finding
from auditor.net.body_pace import floored
from auditor.net.opener import Refused
from auditor.net.transport import Response
from auditor.sitemap.document_entries import DocumentEntries
from auditor.sitemap.parsers import BodyRead, Parse, Read
from auditor.sitemap.read_services import ReadServices
from auditor.sitemap.state_store import StateStore, Stored
from auditor.sitemap.tree_rules import Job
from auditor.sitemap.validated_entries import DocumentSpec
from auditor.urls import HttpUrl, Scope, parse_http_url

# RFC 9110 §15.4.5: the representation the conditional request named is still current.
NOT_MODIFIED = 304


@dataclass(frozen=True, slots=True)
class ReadOutcome:
    """One document read: its record, and whether a sitemap was there (what a probe asks)."""

    record: SitemapRecord
    found: bool


# A 2xx body that a parser tried to read as a sitemap and found broken is still a sitemap there.
_BROKEN_SITEMAP_CODES = frozenset(
    {
        Code.XML_MALFORMED,
        Code.XML_FORBIDDEN,
        Code.XML_ENCODING,
        Code.XML_LEADING_WHITESPACE,
        Code.SITEMAP_COMPRESSION_ERROR,
        Code.SITEMAP_TOO_LARGE,
    }
)


async def read_sitemap(job: Job, services: ReadServices) -> ReadOutcome:
    """Read one document and emit its record (a probe's, only when it found a sitemap)."""
    async with services.parsers.parser() as parse:
        document = _DocumentReader(job, services, parse)
        started = services.clock.monotonic()
        try:
            await document.read()
        except FetchError as error:
            document.tally.add(error.finding(url=job.url))
        except OSError as error:  # a local file that cannot be read
            document.tally.add(finding(Code.SITEMAP_HTTP_ERROR, url=job.url, error=str(error)))
        document.tally.elapsed_ms = round((services.clock.monotonic() - started) * 1000)
    same_as = _probed_before(job, document.fingerprint, services)
    if same_as is not None:  # counted once: this copy adds nothing but the notice
        document.tally.same_document(same_as)
        document.entries.relisted.clear()
    record = document.tally.finish()
    found = document.found(record)
    if job.found_by is not FoundBy.PROBE or found:
        await services.emit_sitemap(record)
    relisted = document.entries.relisted
    if relisted:
        await services.emit_sitemap(Relisted(job.url, array("Q", relisted)))
    return ReadOutcome(record, found)


def _widened(own: Scope, final: HttpUrl, listed_under: str | None) -> Scope:
    """A listed sitemap's scope: its own folder, or the listing index's when that is wider.

    The index is what was submitted (robots.txt, Search Console), and its children stand in its
    folder or below (Google's rule): Hugo's /en/sitemap.xml, listed by /sitemap.xml, lists the
    default language at the root, and that is what the site meant
    (docs/explanation/rules.md#index-children).
    """
    if own.folder is None or listed_under is None:
        return own
    wider = listed_under.removeprefix(final.origin)
    if wider == listed_under or not own.folder.startswith(wider):
        return own  # another origin's index, or a child outside its index's folder
    return replace(own, folder=wider)


def _probed_before(job: Job, fingerprint: str | None, services: ReadServices) -> str | None:
    """The probe of the same target that found this very document before, if one did.

    MkDocs writes sitemap.xml and an identical sitemap.xml.gz: probing both is our guess, not the
    site's submission, so the document counts once (docs/explanation/rules.md#probes). Probes of one
    target are read one after another (auditor.sitemap.walker), so "before" is always the same one.
    """
    if job.found_by is not FoundBy.PROBE or fingerprint is None:
        return None
    first = services.probed.setdefault((job.target, fingerprint), job.url)
    return first if first != job.url else None


class _DocumentReader:
    """The fetch side of one document's reading; its entries go to `entries`."""

    def __init__(self, job: Job, services: ReadServices, parse: Parse) -> None:
        self.job = job
        self._services = services
        self._parse = parse
        self.tally = services.new_tally(
            job.url, parent=job.parent, depth=job.depth, found_by=job.found_by
        )
        self.entries = DocumentEntries(job, services, self.tally)
        self._final: HttpUrl | None = None
        self._own_robots: RobotsTxt | None = None  # the robots.txt of this document's host
        # Blocked by a robots.txt that never answered: said once this document's host answers
        # (docs/explanation/rules.md#robots-status).
        self._blocked_if_answered: Finding | None = None
        self._already_read = False  # it redirects to a document read through another listing
        self.fingerprint: str | None = None  # of a probe's document, once read

    def found(self, record: SitemapRecord) -> bool:
        """Whether a sitemap is there: one was read, or a broken one, or one read elsewhere."""
        if self._already_read or record.kind is not None:
            return True
        answered = record.status is None or 200 <= record.status < 300
        return answered and any(item.code in _BROKEN_SITEMAP_CODES for item in record.findings)

    async def read(self) -> None:
        if self.job.path is not None:
            async with await LocalFile.open(self.job.path) as handle:
                await self._stream(handle.read, content_encoding=None)
            return
        await self._check_robots()
        state = self._services.state
        stored = await state.lookup(self.job.url) if state is not None else None
        try:
            await self._fetch(stored)
        finally:
            if stored is not None:
                await stored.close()

    async def _fetch(self, stored: Stored | None) -> None:
        """Request the document, conditionally when a whole copy is kept, and read the answer."""
        asked = stored.entry.conditional_headers() if stored is not None else None
        response = await self._open(asked)
        if response is None:
            return
        if stored is not None and response.status == NOT_MODIFIED:
            response.close()  # RFC 9110 §15.4.5: a 304 has no body
            await self._replay(stored)
            return
        async with response:
            state = self._services.state
            if state is not None:
                # Validators are the final URL's: a redirected sitemap is not kept; nor one
                # without validators, which a later run could not ask about.
                validated = "ETag" in response.headers or "Last-Modified" in response.headers
                if validated and not self.tally.redirects:
                    await self._read_and_keep(response, state)
                    return
                state.forget(self.job.url)
            encoding = response.headers.get("Content-Encoding")
            await self._stream(self._paced(response), content_encoding=encoding)

    def _paced(self, response: Response) -> Read:
        """The body's reads, ended when it falls below the floor (1 KiB/s over --timeout)."""
        window_s, clock = self._services.config.timeout_s, self._services.clock
        return floored(response.read, window_s=window_s, clock=clock)

    async def _replay(self, stored: Stored) -> None:
        """Read the kept copy exactly as its answer was read: same decoding, parsing and checks."""
        self.tally.from_state = True
        self.tally.content_type = stored.entry.content_type
        await self._stream(stored.read, content_encoding=stored.entry.content_encoding)

    async def _read_and_keep(self, response: Response, state: StateStore) -> None:
        """Read the body, copying it as it comes; keep the copy if read whole.

        See docs/explanation/design.md#state.
        """
        copy = state.copy()

        paced = self._paced(response)

        async def read() -> bytes:
            chunk = await paced()
            await copy.write(chunk)
            return chunk

        whole = False
        try:
            encoding = response.headers.get("Content-Encoding")
            whole = await self._stream(read, content_encoding=encoding)
        finally:
            # Cut at the size cap or stopped by a broken document, a copy would be replayed
            # as if it were the whole body; and only sitemaps are kept.
            if whole and self.tally.kind is not None:
                await state.keep(self.job.url, copy, response.headers)
            else:
                await copy.discard()
                state.forget(self.job.url)

    async def _check_robots(self) -> None:
        parsed = parse_http_url(self.job.url)
        fetched = await self._services.robots.get(parsed.origin) if parsed else None
        robots = self._own_robots = fetched.robots if fetched is not None else None
        # "Sitemap blocked by robots.txt" is Search Console's verdict: as --robots-agent reads it.
        agent = self._services.config.robots_agent
        if robots is not None and not robots.allows(self.job.url, agent):
            code = Code.SITEMAP_BLOCKED_BY_ROBOTS
            said = robots_detail(robots, agent=agent)
            blocked = Finding(code, code.info.title, None, None, said)
            if robots.silent:
                self._blocked_if_answered = blocked
            else:
                self.tally.add(blocked)

    async def _open(self, asked: dict[str, str] | None) -> Response | None:
        """The response to read (2xx, or the 304 to `asked`), or None when there is none."""
        tree, job = self._services.tree, self.job
        opened = await self._services.opener.open(
            job.url, on_hop=lambda key: tree.check_hop(job, key), headers=asked
        )
        if self._blocked_if_answered is not None:  # the host answers; its robots.txt did not
            self.tally.add(self._blocked_if_answered)
        self.tally.redirects = opened.redirects
        hops = len(opened.redirects)
        if isinstance(opened, Refused):
            match opened.reason:
                case AlreadyRead(url=known):  # read through another listing
                    self._already_read = True
                    self.tally.add(finding(Code.SITEMAP_REDIRECTED, to=known, hops=hops))
                case Finding() as problem:  # it says where the chain wanted to go
                    self.tally.add(finding(Code.SITEMAP_REDIRECTED, hops=hops))
                    self.tally.add(problem)
            return None
        if hops:
            self.tally.add(finding(Code.SITEMAP_REDIRECTED, to=opened.final_url, hops=hops))
        response = opened.response
        self.tally.status = response.status
        self.tally.final_url = opened.final_url
        self.tally.content_type = response.headers.get("Content-Type")
        # A 304 answers a conditional request only: to an unconditional one (or after a
        # redirect, where none is sent) it is an error like any other non-2xx.
        not_modified = response.status == NOT_MODIFIED and bool(asked) and not hops
        if not 200 <= response.status < 300 and not not_modified:
            response.close()
            message = f"Sitemap answered HTTP {response.status}"
            self.tally.add(finding(Code.SITEMAP_HTTP_ERROR, message, status=response.status))
            return None
        self._final = parse_http_url(opened.final_url)
        if self._final is not None:
            self.entries.located_at(self._final.key)
        return response

    async def _stream(self, read: Read, *, content_encoding: str | None) -> bool:
        """Parse the body; True when it was read to its end (not stopped early)."""
        body = BodyRead()
        try:
            await self._parse(self._spec(content_encoding), read, self.entries.handle, body)
        finally:
            self.tally.bytes = body.bytes
            self.tally.compressed = body.compressed
            self.fingerprint = body.fingerprint if body.ended else None
        return body.ended

    def _spec(self, content_encoding: str | None) -> DocumentSpec:
        """What validating the entries needs: the location rule's scope, known before the body."""
        config, final = self._services.config, self._final
        urlset = index = None
        if final is not None:  # the location rule is relative to where the document is
            # Named in its own host's robots.txt (itself or an index above it), a sitemap may
            # list any URL of that host: decided once here, not waived URL by URL.
            robots = self._own_robots
            submitted = robots is not None and robots.names_any(self.entries.keys)
            index = Scope.of(final, with_folder=not submitted)
            urlset = _widened(index, final, self.job.listed_under)
            self.entries.scope_prefix = f"{final.origin}{urlset.folder or '/'}"
        return DocumentSpec(
            self.job.url,
            self._services.now,
            content_encoding,
            config.max_sitemap_bytes,
            urlset_scope=urlset,
            index_scope=index,
            local=self.job.path is not None,
            fingerprint=self.job.found_by is FoundBy.PROBE,
        )
