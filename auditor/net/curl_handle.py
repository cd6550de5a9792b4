"""One reusable libcurl easy handle: its options set once, a transfer's bytes, its end judged.

A URL check's transfer keeps at most `max_body` bytes of the body, decoded by libcurl (gzip,
deflate, br); a document's is handed on raw, chunk by chunk, to a stream that pauses the
transfer while it is full. Every libcurl error becomes a FetchError carrying a finding code,
once, in `failure`. The address guard judges every address libcurl is about to connect to
(OPENSOCKETFUNCTION): no DNS-rebinding window.
"""

from __future__ import annotations

import io
import logging
import socket
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pycurl

from auditor.codes import Code
from auditor.errors import FetchError
from auditor.net import causes
from auditor.net.address_guard import Reach, address_allowed
from auditor.net.answer_head import head_over_bounds
from auditor.net.body_pace import FLOOR_BYTES_PER_S
from auditor.net.transport import Timeouts

# What this libcurl decodes itself (built with zlib and brotli); the body cap counts decoded bytes.
ACCEPT_ENCODING = "gzip, deflate, br"
# A document's body is decoded by auditor.net.decompress, with its size cap: libcurl hands it
# over as it came, and asks for the encodings that module undoes.
DOCUMENT_ENCODINGS = "gzip, deflate"
DNS_CACHE_S = 300  # as the aiohttp client's ttl_dns_cache
STREAM_BUFFER_BYTES = 1 << 20  # a document's bytes waiting for its reader; past them, a pause
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
E_WRITE_ERROR = pycurl.E_WRITE_ERROR
RESPONSE_CODE = pycurl.RESPONSE_CODE
TOTAL_TIME_T = pycurl.TOTAL_TIME_T
E_BAD_CONTENT_ENCODING = pycurl.E_BAD_CONTENT_ENCODING

log = logging.getLogger(__name__)


class Stream:
    """A document's body as it comes: chunks waiting for the reader, bounded by a pause."""

    __slots__ = ("chunks", "ended", "paused", "size", "wake")

    def __init__(self) -> None:
        self.chunks: deque[bytes] = deque()
        self.size = 0  # bytes in `chunks`
        self.paused = False
        self.ended = False  # the transfer is over (its bytes may still wait in `chunks`)
        self.wake: Callable[[], None] | None = None  # the reader waits: call once, on news


class Handle:
    """One easy handle, its callbacks bound once, and the transfer it carries."""

    __slots__ = (
        "blocked", "body", "code", "curl", "decoding", "elapsed_s", "head", "headers_sent",
        "max_body", "message", "method", "opened", "pipewait", "size", "status", "stream",
        "timeouts", "truncated",
    )  # fmt: skip

    def __init__(
        self, *, user_agent: str, reach: Reach, ca_file: Path | None, insecure: bool = False
    ) -> None:
        curl = pycurl.Curl()
        self.curl = curl
        self.head = io.BytesIO()
        self.body: list[bytes] = []
        self.size = self.max_body = self.status = self.code = 0
        self.truncated = self.opened = self.pipewait = False
        self.decoding = True
        self.blocked: str | None = None
        self.message = ""
        self.method = "GET"
        self.headers_sent: list[str] = []
        self.timeouts: Timeouts | None = None
        self.elapsed_s = 0.0
        self.stream: Stream | None = None
        setopt = curl.setopt
        setopt(pycurl.NOSIGNAL, 1)  # no SIGALRM for DNS timeouts: the loop's thread runs it
        # each hop is the policy's to judge (docs/explanation/design.md#pipeline)
        setopt(pycurl.FOLLOWLOCATION, 0)
        setopt(pycurl.PROTOCOLS, pycurl.PROTO_HTTP | pycurl.PROTO_HTTPS)
        setopt(pycurl.ACCEPT_ENCODING, ACCEPT_ENCODING)
        setopt(pycurl.USERAGENT, user_agent)
        setopt(pycurl.DNS_CACHE_TIMEOUT, DNS_CACHE_S)
        setopt(pycurl.LOW_SPEED_LIMIT, FLOOR_BYTES_PER_S)  # the body floor (auditor.net.body_pace)
        setopt(pycurl.WRITEFUNCTION, self._write)
        setopt(pycurl.WRITEHEADER, self.head)  # a C write per line: no Python frame per header
        if reach is not Reach.ANY:
            self._guard(reach)
        if ca_file is not None:
            setopt(pycurl.CAINFO, str(ca_file))
        if insecure:  # --insecure: the certificate problem is the target's finding instead
            setopt(pycurl.SSL_VERIFYPEER, 0)
            setopt(pycurl.SSL_VERIFYHOST, 0)

    def _guard(self, reach: Reach) -> None:
        def open_socket(_purpose: int, address: Any) -> int:
            """The guard, on the address libcurl is about to connect to (after DNS, each try)."""
            ip = str(address.addr[0])
            if not address_allowed(ip, reach):
                self.blocked = ip
                return int(pycurl.SOCKET_BAD)  # libcurl tries the next address, else error 7
            try:
                made = socket.socket(address.family, address.socktype, address.protocol)
            except OSError:
                return int(pycurl.SOCKET_BAD)
            self.opened = True
            return made.detach()  # libcurl owns the descriptor and closes it

        self.curl.setopt(pycurl.OPENSOCKETFUNCTION, open_socket)

    def prepare(
        self,
        url: str,
        method: str,
        lines: list[str],
        timeouts: Timeouts,
        max_body: int,
        *,
        stream: Stream | None = None,
    ) -> None:
        """Set this request's options, only those that differ from the handle's last request.

        `stream`: a document's, its body handed on raw; else a check's, decoded and capped.
        """
        setopt = self.curl.setopt
        setopt(pycurl.URL, url)
        # RFC 9113 over TLS (ALPN): wait for a connection that may multiplex rather than open
        # another. Never for http://: an HTTP/1.1 connection would serialise the requests.
        pipewait = url[:6].lower() == "https:"
        if pipewait is not self.pipewait:
            setopt(pycurl.PIPEWAIT, int(pipewait))
            self.pipewait = pipewait
        if method != self.method:
            self._method(method)
        if lines is not self.headers_sent and lines != self.headers_sent:
            # pycurl keeps the last list when given an empty one: unset it instead.
            setopt(pycurl.HTTPHEADER, lines) if lines else self.curl.unsetopt(pycurl.HTTPHEADER)
        self.headers_sent = lines
        if timeouts is not self.timeouts and timeouts != self.timeouts:
            connect_s = timeouts.idle_s or timeouts.total_s
            setopt(pycurl.TIMEOUT_MS, max(1, round(timeouts.total_s * 1000)))
            setopt(pycurl.CONNECTTIMEOUT_MS, max(1, round(connect_s * 1000)))
            setopt(pycurl.LOW_SPEED_TIME, max(1, round(timeouts.idle_s or timeouts.total_s)))
        self.timeouts = timeouts
        decoding = stream is None
        if decoding is not self.decoding:
            setopt(pycurl.HTTP_CONTENT_DECODING, int(decoding))
            setopt(pycurl.ACCEPT_ENCODING, ACCEPT_ENCODING if decoding else DOCUMENT_ENCODINGS)
            self.decoding = decoding
        self.max_body = max_body
        self.stream = stream
        head = self.head  # the last transfer's bytes and flags forgotten
        head.seek(0)
        head.truncate()
        self.body = []
        self.size = 0
        self.truncated = self.opened = False
        self.blocked = None

    def _method(self, method: str) -> None:
        setopt = self.curl.setopt
        if self.method not in ("GET", "HEAD"):
            self.curl.unsetopt(pycurl.CUSTOMREQUEST)
        setopt(pycurl.NOBODY, 1) if method == "HEAD" else setopt(pycurl.HTTPGET, 1)
        if method not in ("GET", "HEAD"):
            setopt(pycurl.CUSTOMREQUEST, method)
        self.method = method

    def _write(self, data: bytes) -> int | None:
        """Keep at most `max_body` bytes; past them, end the transfer (libcurl error 23)."""
        stream = self.stream
        if stream is not None:
            return self._streamed(stream, data)
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

    def _streamed(self, stream: Stream, data: bytes) -> int | None:
        if stream.size >= STREAM_BUFFER_BYTES:
            stream.paused = True
            return int(pycurl.WRITEFUNC_PAUSE)  # libcurl keeps `data` and gives it again
        stream.chunks.append(data)
        stream.size += len(data)
        self.size += len(data)
        wake, stream.wake = stream.wake, None
        if wake is not None:
            wake()
        return None

    def finish(self, code: int, message: str, *, trace: bool) -> None:
        """Note how the transfer ended (the handle is out of the multi).

        `trace`: -vv, where the time of the transfer went (asked once a run, not here).
        """
        curl = self.curl
        self.code, self.message = code, message
        self.status = curl.getinfo(RESPONSE_CODE)
        self.elapsed_s = curl.getinfo(TOTAL_TIME_T) / 1e6
        if trace:
            _trace_transfer(curl, code, self.elapsed_s)

    def head_done(self) -> bool:
        """Whether a final answer's head came whole, its blank line included."""
        raw = self.head.getvalue()
        return self.status >= 200 and raw.endswith((b"\n\r\n", b"\n\n"))

    def outcome(self) -> FetchError | None:
        """Why no answer came (a FetchError), or None: the head came whole.

        A transfer that ended badly after a whole head leaves its answer: `body_error` says
        what broke.
        """
        code = self.code
        if not code or (code == E_WRITE_ERROR and self.truncated) or self.head_done():
            return None
        return failure(self)

    def body_error(self) -> FetchError | None:
        """What a transfer that ended badly after a whole head means (None: nothing)."""
        code = self.code
        if not code or (code == E_WRITE_ERROR and self.truncated):
            return None
        if code == E_BAD_CONTENT_ENCODING:
            self.body = []  # a page, not a sitemap: a broken encoding only hides its head
            return None
        if code == pycurl.E_OPERATION_TIMEDOUT:
            # lib/speedcheck.c's words when LOW_SPEED_LIMIT/LOW_SPEED_TIME ended it: the floor.
            kind = {"kind": "too_slow"} if "too slow" in self.message else {}
            said = "too slow: below the floor" if kind else causes.timeout_words(None, self.message)
            return _logged(self, FetchError(Code.NET_TIMEOUT, said, **kind))
        # A body that broke off, or lied about its length.
        return _logged(self, FetchError(Code.NET_PROTOCOL, causes.BODY_BROKE_OFF))


def _trace_transfer(curl: Any, code: int, total_s: float) -> None:
    """-vv: one transfer's phases (libcurl's timers, microseconds from its start) and reuse."""
    phases = {
        "dns": pycurl.NAMELOOKUP_TIME_T,
        "connect": pycurl.CONNECT_TIME_T,
        "tls": pycurl.APPCONNECT_TIME_T,
        "first byte": pycurl.STARTTRANSFER_TIME_T,
    }
    said = ", ".join(f"{name} {curl.getinfo(key) / 1000:.1f} ms" for name, key in phases.items())
    new_connections = curl.getinfo(pycurl.NUM_CONNECTS)
    url = curl.getinfo(pycurl.EFFECTIVE_URL)
    log.debug(
        "libcurl %s: code %d, %s, total %.1f ms, %d new connection(s)",
        url, code, said, total_s * 1000, new_connections,
    )  # fmt: skip


def _logged(handle: Handle, error: FetchError) -> FetchError:
    """`error`, with libcurl's own words for it (the policy logs them under -v, never kept)."""
    said = handle.message or pycurl.easy_strerror(handle.code)  # empty: CURLE_TOO_LARGE
    error.library = f"libcurl error {handle.code}: {said}"[:_MESSAGE_CHARS]
    return error


def failure(handle: Handle) -> FetchError:
    """The FetchError for a transfer that gave no whole head, its cause in words."""
    code = handle.code
    if code == pycurl.E_COULDNT_CONNECT and handle.blocked is not None and not handle.opened:
        return FetchError(Code.NET_BLOCKED_ADDRESS, f"{handle.blocked} is a private address")
    if head_over_bounds(handle.head.getvalue()):  # what aiohttp refuses as soon as it reads it
        return _logged(handle, FetchError(Code.NET_PROTOCOL, "an answer head over the bounds"))
    finding = _CODES.get(code, Code.NET_PROTOCOL)  # the OS's errno says a refusal, not its text
    number = handle.curl.getinfo(pycurl.OS_ERRNO) if code == pycurl.E_COULDNT_CONNECT else None
    said = handle.message or pycurl.easy_strerror(code)
    words = causes.cause_words(finding, said, number=number)
    return _logged(handle, FetchError(finding, words))


def refused(exc: Exception) -> FetchError:
    """A URL libcurl would not take (setopt refused it)."""
    return FetchError(Code.LOC_INVALID, f"URL refused: {exc}"[:_MESSAGE_CHARS])
