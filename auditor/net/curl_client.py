"""The libcurl transport of URL checks (auditor.net.transport), on pycurl.

With `auditor.net.curl_multi`, the only modules that import pycurl. One request, at most
`max_body` bytes of its body read, the answer handed back whole (a
BufferedResponse). One multi handle runs in a thread of its own and hands finished transfers to
the event loop in batches (`auditor.net.curl_multi`); easy handles are reused. libcurl follows
no redirect (the opener judges each hop), keeps and reuses connections, speaks HTTP/2 where a
TLS server offers it (ALPN), decodes gzip, deflate and br, and reads proxies from the
environment as libcurl does (http_proxy, https_proxy, all_proxy, no_proxy). The address guard
judges every address libcurl is about to connect to (OPENSOCKETFUNCTION): no DNS-rebinding
window. Every libcurl error becomes a FetchError carrying a finding code, once, in `_failure`.
"""

from __future__ import annotations

import asyncio
import io
import logging
import socket
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import urlsplit

import pycurl

from auditor.codes import Code
from auditor.errors import FetchError
from auditor.net import causes
from auditor.net.address_guard import Reach, address_allowed
from auditor.net.answer_head import head_over_bounds, parse_head
from auditor.net.body_pace import FLOOR_BYTES_PER_S
from auditor.net.curl_multi import CurlMulti, trace_transfer
from auditor.net.redirects import encoded_url
from auditor.net.transport import BufferedResponse, ConnectionPolicy, Timeouts
from auditor.urls import authority_of, dns_name_problem, needs_escaping, parse_http_url

# What this libcurl decodes itself (built with zlib and brotli); the body cap counts decoded bytes.
ACCEPT_ENCODING = "gzip, deflate, br"
DEFAULT_MAX_BODY = 1 << 20  # a caller that gives no cap gets at most this much
DNS_CACHE_S = 300  # as the aiohttp client's ttl_dns_cache
MAX_AUTHORITIES = 1024  # hosts whose header decision is kept (most runs check a few)
_MESSAGE_CHARS = 300
_TLS_CODES = frozenset(
    getattr(pycurl, name)
    for name in dir(pycurl)
    if name.startswith("E_SSL") or name == "E_PEER_FAILED_VERIFICATION"
)
# libcurl's error codes -> finding codes, for errors before the answer's head (see the table in
# libcurl-errors(3)); anything else is a malformed answer, net.protocol.
_CODES: dict[int, Code] = {
    pycurl.E_COULDNT_RESOLVE_HOST: Code.NET_DNS,
    pycurl.E_COULDNT_RESOLVE_PROXY: Code.NET_DNS,
    pycurl.E_COULDNT_CONNECT: Code.NET_CONNECT,
    pycurl.E_OPERATION_TIMEDOUT: Code.NET_TIMEOUT,
    pycurl.E_GOT_NOTHING: Code.NET_CONNECT,  # closed before any answer
    pycurl.E_SEND_ERROR: Code.NET_CONNECT,
    pycurl.E_RECV_ERROR: Code.NET_CONNECT,  # reset before the head was whole
    pycurl.E_URL_MALFORMAT: Code.LOC_INVALID,
    **dict.fromkeys(_TLS_CODES, Code.NET_TLS),
}

log = logging.getLogger(__name__)
Resolve = Callable[[str], Sequence[str] | None]  # a test's name -> addresses (no DNS)


class _Slot:
    """One reusable easy handle, its callbacks bound once, and the request it carries."""

    __slots__ = (
        "blocked", "body", "code", "curl", "elapsed_s", "head", "headers_sent", "max_body",
        "message", "method", "opened", "pipewait", "reach", "size", "status",
        "timeouts", "truncated",
    )  # fmt: skip

    def __init__(
        self, *, user_agent: str, reach: Reach, ca_file: Path | None, insecure: bool = False
    ) -> None:
        curl = pycurl.Curl()
        self.curl = curl
        self.reach = reach
        self.head = io.BytesIO()
        self.body: list[bytes] = []
        self.size = self.max_body = self.status = self.code = 0
        self.truncated = self.opened = self.pipewait = False
        self.blocked: str | None = None
        self.message = ""
        self.method = "GET"
        self.headers_sent: list[str] = []
        self.timeouts: Timeouts | None = None
        self.elapsed_s = 0.0
        setopt = curl.setopt
        setopt(pycurl.NOSIGNAL, 1)  # libcurl runs in a thread: no SIGALRM for DNS timeouts
        # each hop is the opener's to judge (docs/explanation/design.md#pipeline)
        setopt(pycurl.FOLLOWLOCATION, 0)
        setopt(pycurl.PROTOCOLS, pycurl.PROTO_HTTP | pycurl.PROTO_HTTPS)
        setopt(pycurl.ACCEPT_ENCODING, ACCEPT_ENCODING)
        setopt(pycurl.USERAGENT, user_agent)
        setopt(pycurl.DNS_CACHE_TIMEOUT, DNS_CACHE_S)
        setopt(pycurl.LOW_SPEED_LIMIT, FLOOR_BYTES_PER_S)  # the body floor (auditor.net.body_pace)
        setopt(pycurl.WRITEFUNCTION, self._write)
        setopt(pycurl.WRITEHEADER, self.head)  # a C write per line: no Python frame per header
        if reach is not Reach.ANY:
            setopt(pycurl.OPENSOCKETFUNCTION, self._open_socket)
        if ca_file is not None:
            setopt(pycurl.CAINFO, str(ca_file))
        if insecure:  # --insecure: the certificate problem is the target's finding instead
            setopt(pycurl.SSL_VERIFYPEER, 0)
            setopt(pycurl.SSL_VERIFYHOST, 0)

    def prepare(
        self, url: str, method: str, lines: list[str], timeouts: Timeouts, max_body: int
    ) -> None:
        """Set this request's options, only those that differ from the handle's last request."""
        setopt = self.curl.setopt
        setopt(pycurl.URL, url)
        # RFC 9113 over TLS (ALPN): wait for a connection that may multiplex rather than open
        # another. Never for http://: an HTTP/1.1 connection would serialise the requests.
        pipewait = url[:6].lower() == "https:"
        if pipewait is not self.pipewait:
            setopt(pycurl.PIPEWAIT, int(pipewait))
            self.pipewait = pipewait
        if method != self.method:
            if self.method not in ("GET", "HEAD"):
                self.curl.unsetopt(pycurl.CUSTOMREQUEST)
            setopt(pycurl.NOBODY, 1) if method == "HEAD" else setopt(pycurl.HTTPGET, 1)
            if method not in ("GET", "HEAD"):
                setopt(pycurl.CUSTOMREQUEST, method)
            self.method = method
        if lines != self.headers_sent:
            # pycurl keeps the last list when given an empty one: unset it instead.
            setopt(pycurl.HTTPHEADER, lines) if lines else self.curl.unsetopt(pycurl.HTTPHEADER)
            self.headers_sent = lines
        if timeouts != self.timeouts:
            connect_s = timeouts.idle_s or timeouts.total_s
            setopt(pycurl.TIMEOUT_MS, max(1, round(timeouts.total_s * 1000)))
            setopt(pycurl.CONNECTTIMEOUT_MS, max(1, round(connect_s * 1000)))
            setopt(pycurl.LOW_SPEED_TIME, max(1, round(timeouts.idle_s or timeouts.total_s)))
            self.timeouts = timeouts
        self.max_body = max_body
        self.reset()

    def reset(self) -> None:
        """Forget the last transfer's bytes and flags."""
        self.head.seek(0)
        self.head.truncate()
        self.body = []
        self.size = 0
        self.truncated = self.opened = False
        self.blocked = None

    def _write(self, data: bytes) -> int | None:
        """Keep at most `max_body` bytes; past them, end the transfer (libcurl error 23)."""
        room = self.max_body - self.size
        if len(data) <= room:
            self.body.append(data)
            self.size += len(data)
            return None  # all taken
        if room > 0:
            self.body.append(data[:room])
            self.size += room
        self.truncated = True
        return 0  # CURLOPT_WRITEFUNCTION: less than given aborts with CURLE_WRITE_ERROR

    def _open_socket(self, _purpose: int, address: Any) -> int:
        """The guard, on the address libcurl is about to connect to (after DNS, each try)."""
        ip = str(address.addr[0])
        if not address_allowed(ip, self.reach):
            self.blocked = ip
            return int(pycurl.SOCKET_BAD)  # libcurl tries the name's next address, else error 7
        try:
            made = socket.socket(address.family, address.socktype, address.protocol)
        except OSError:
            return int(pycurl.SOCKET_BAD)
        self.opened = True
        return made.detach()  # libcurl owns the descriptor and closes it

    def finish(self, code: int, message: str) -> None:
        """Note how the transfer ended (in the multi's thread, the handle out of the multi)."""
        curl = self.curl
        self.code, self.message = code, message
        self.status = int(curl.getinfo(pycurl.RESPONSE_CODE))
        self.elapsed_s = curl.getinfo(pycurl.TOTAL_TIME_T) / 1e6
        if log.isEnabledFor(
            logging.DEBUG
        ):  # -vv: where the time of a transfer went, as libcurl measured it
            trace_transfer(curl, code, self.elapsed_s)

    def head_done(self, raw: bytes) -> bool:
        """Whether a final answer's head (`raw`) came whole, its blank line included."""
        return self.status >= 200 and raw.endswith((b"\n\r\n", b"\n\n"))

    def answer(self) -> BufferedResponse:
        """The transfer as an answer, or FetchError when no answer came."""
        code, raw = self.code, self.head.getvalue()
        error = None
        if code and not (code == pycurl.E_WRITE_ERROR and self.truncated):
            if not self.head_done(raw):
                raise _failure(self, raw)
            error = _body_error(code, self.message)
            error = error and _logged(self, error)
            if code == pycurl.E_BAD_CONTENT_ENCODING:
                self.body = []  # a page, not a sitemap: a broken encoding only hides its head
        headers = parse_head(raw)
        body = b"".join(self.body)
        return BufferedResponse(self.status, headers, body, elapsed_s=self.elapsed_s, error=error)


def _logged(slot: _Slot, error: FetchError) -> FetchError:
    """`error`, with libcurl's own words for it (the opener logs them under -v, never kept)."""
    said = slot.message or pycurl.easy_strerror(slot.code)  # an empty buffer: CURLE_TOO_LARGE
    error.library = f"libcurl error {slot.code}: {said}"[:_MESSAGE_CHARS]
    return error


def _failure(slot: _Slot, raw: bytes) -> FetchError:
    """The FetchError for a transfer that gave no whole head, its cause in words."""
    code = slot.code
    if code == pycurl.E_COULDNT_CONNECT and slot.blocked is not None and not slot.opened:
        return FetchError(Code.NET_BLOCKED_ADDRESS, f"{slot.blocked} is a private address")
    if head_over_bounds(raw):  # what aiohttp refuses as soon as it reads it
        return _logged(slot, FetchError(Code.NET_PROTOCOL, "an answer head over the bounds"))
    finding = _CODES.get(code, Code.NET_PROTOCOL)  # the OS's errno says a refusal, not its text
    number = slot.curl.getinfo(pycurl.OS_ERRNO) if code == pycurl.E_COULDNT_CONNECT else None
    words = causes.cause_words(finding, slot.message or pycurl.easy_strerror(code), number=number)
    return _logged(slot, FetchError(finding, words))


def _body_error(code: int, message: str) -> FetchError | None:
    """What a transfer that ended badly after a whole head means (None: nothing to report)."""
    if code == pycurl.E_BAD_CONTENT_ENCODING:
        return None
    if code == pycurl.E_OPERATION_TIMEDOUT:
        # lib/speedcheck.c's words when LOW_SPEED_LIMIT/LOW_SPEED_TIME ended it: the floor.
        kind = {"kind": "too_slow"} if "too slow" in message else {}
        said = "too slow: below the floor" if kind else causes.timeout_words(None, message)
        return FetchError(Code.NET_TIMEOUT, said, **kind)
    return FetchError(Code.NET_PROTOCOL, causes.BODY_BROKE_OFF)  # or lied about its length


class CurlTransport:
    """URL checks on libcurl's multi interface: connection limits, our headers, no cookies."""

    def __init__(self, policy: ConnectionPolicy, *, resolve: Resolve | None = None) -> None:
        """`policy`: limits, headers and their hosts, TLS, reach (auditor.net.transport).

        Its `ca_file` replaces libcurl's CAs (CURLOPT_CAINFO): the system's and the extra one
        together (auditor.http_stack builds it). `resolve`: a test's answers for some names,
        pinned with CURLOPT_RESOLVE; the guard judges them all the same.
        """
        self._user_agent = policy.user_agent
        self._lines = _header_lines(policy.headers)
        self._header_hosts = policy.header_hosts
        self._by_origin = {o: _header_lines(own) for o, own in policy.origin_headers.items()}
        self._reach = policy.reach
        self._ca_file = policy.ca_file
        self._insecure = policy.insecure
        self._resolve = resolve
        self._free: list[_Slot] = []
        # Per `scheme://authority` as written: the header lines its requests get, or why none go.
        self._by_authority: dict[str, list[str] | FetchError] = {}
        spare = policy.spare
        self._multi = CurlMulti(
            per_host=policy.per_host + spare,
            concurrency=policy.concurrency + spare,
            release=self._free.append,
        )
        self._slots: list[_Slot] = []

    async def __aenter__(self) -> Self:
        self._multi.start(asyncio.get_running_loop())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop the multi's thread (every transfer removed, every connection closed)."""
        await self._multi.stop()
        for slot in self._slots:
            slot.curl.close()
        self._slots.clear()
        self._free.clear()

    async def open(
        self,
        url: str,
        *,
        timeouts: Timeouts,
        method: str = "GET",
        headers: Mapping[str, str] | None = None,
        max_body: int | None = None,
    ) -> BufferedResponse:
        """Send one request (no redirect followed); the answer with its body prefix read."""
        lines = self._lines_for(url, headers)
        slot = self._free.pop() if self._free else self._new_slot()
        if self._resolve is not None:
            self._pin(slot, url)
        try:
            slot.prepare(
                _sendable(url),
                method,
                lines,
                timeouts,
                DEFAULT_MAX_BODY if max_body is None else max_body,
            )
        except (pycurl.error, ValueError, UnicodeError) as exc:
            self._free.append(slot)
            raise FetchError(Code.LOC_INVALID, f"URL refused: {exc}"[:_MESSAGE_CHARS]) from exc
        # libcurl itself resends a request once when a kept-alive connection turns out closed
        # (RFC 9112 §9.3.1). Cancelled: the handle comes back through `release`.
        await self._multi.run(slot)
        try:
            return slot.answer()
        finally:
            slot.body = []
            self._free.append(slot)

    def _lines_for(self, url: str, own: Mapping[str, str] | None) -> list[str]:
        """The user's header lines when `url` is on a target's host; this request's own after."""
        authority = authority_of(url)
        for_host = self._by_authority.get(authority)
        if for_host is None:
            for_host = self._lines_for_host(url)
            if len(self._by_authority) >= MAX_AUTHORITIES:
                self._by_authority.clear()
            self._by_authority[authority] = for_host
        if isinstance(for_host, FetchError):
            raise for_host
        if own:
            return [*for_host, *(f"{name}: {value}" for name, value in own.items())]
        return for_host

    def _lines_for_host(self, url: str) -> list[str] | FetchError:
        host = urlsplit(url).hostname or ""
        if host == "invalid" or host.endswith(".invalid"):  # RFC 6761 §6.4: never looked up
            return FetchError(Code.NET_DNS, causes.dns_words(host))
        problem = dns_name_problem(host) if host else None
        if problem is not None:  # as aiohttp's transport says it: no resolver takes it
            return FetchError(Code.NET_DNS, f"{causes.dns_words(host)} ({problem})")
        hosts = self._header_hosts
        lines = self._lines if self._lines and (hosts is None or host in hosts) else []
        if self._by_origin:
            parsed = parse_http_url(url)
            own = self._by_origin.get(parsed.origin) if parsed is not None else None
            lines = [*lines, *own] if own else lines
        return lines

    def _pin(self, slot: _Slot, url: str) -> None:
        """The test seam: `host` answered by `resolve` (CURLOPT_RESOLVE), no DNS asked."""
        assert self._resolve is not None
        parts = urlsplit(url)
        host = parts.hostname or ""
        addresses = self._resolve(host)
        entries = []
        if addresses:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            shown = ",".join(f"[{a}]" if ":" in a else a for a in addresses)
            # The entry goes into the multi's DNS cache: "-" drops an earlier answer first.
            entries = [f"-{host}:{port}", f"{host}:{port}:{shown}"]
        slot.curl.setopt(pycurl.RESOLVE, entries)

    def _new_slot(self) -> _Slot:
        slot = _Slot(
            user_agent=self._user_agent,
            reach=self._reach,
            ca_file=self._ca_file,
            insecure=self._insecure,
        )
        self._slots.append(slot)
        return slot


def _header_lines(headers: Sequence[tuple[str, str]]) -> list[str]:
    # curl(1): "Name;" sends an empty header, "Name:" would remove it.
    return [f"{name}: {value}" if value else f"{name};" for name, value in headers]


def _sendable(url: str) -> str:
    """The URL as libcurl must get it: percent-encoded (aiohttp encodes what sitemaps leave raw)."""
    return encoded_url(url) if needs_escaping(url) else url
