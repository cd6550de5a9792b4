"""Which header lines a request over libcurl carries: the user's, on the targets' hosts only.

`--header` values go to the hosts of the URL targets (all hosts when only files are given); a
target's basic auth to its own origin (auditor.http_stack, RFC 7617 §2.2). A host that cannot
resolve is refused here, as aiohttp's resolver refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from urllib.parse import urlsplit

import pycurl

from auditor.codes import Code
from auditor.errors import FetchError
from auditor.net import causes
from auditor.net.curl_handle import Handle
from auditor.net.redirects import encoded_url
from auditor.net.transport import ConnectionPolicy
from auditor.urls import authority_of, dns_name_problem, needs_escaping, parse_http_url

Resolve = Callable[[str], Sequence[str] | None]  # a test's name -> addresses (no DNS)
MAX_AUTHORITIES = 1024  # hosts whose header decision is kept (most runs check a few)


class HeaderLines:
    """The header lines of each request, decided once per `scheme://authority`."""

    def __init__(self, policy: ConnectionPolicy) -> None:
        self._lines = header_lines(policy.headers)
        self._header_hosts = policy.header_hosts
        self._by_origin = {o: header_lines(own) for o, own in policy.origin_headers.items()}
        # Per `scheme://authority` as written: the header lines its requests get, or why none go.
        self._by_authority: dict[str, list[str] | FetchError] = {}
        self.last: tuple[str, list[str]] = ("\0", [])  # (`scheme://authority/`, lines)

    def for_url(self, url: str, own: Mapping[str, str] | None) -> list[str]:
        """The user's header lines when `url` is on a target's host; this request's own after."""
        prefix, for_host = self.last
        if not url.startswith(prefix):  # most requests go where the last one went
            authority = authority_of(url)
            known = self._by_authority.get(authority)
            said = known if known is not None else self._host_lines(url, authority)
            if isinstance(said, FetchError):
                raise said
            for_host = said
            self.last = (f"{authority}/", for_host)
        if own:
            return [*for_host, *(f"{name}: {value}" for name, value in own.items())]
        return for_host

    def _host_lines(self, url: str, authority: str) -> list[str] | FetchError:
        for_host = self._lines_for_host(url)
        if len(self._by_authority) >= MAX_AUTHORITIES:
            self._by_authority.clear()
        self._by_authority[authority] = for_host
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


def header_lines(headers: Sequence[tuple[str, str]]) -> list[str]:
    # curl(1): "Name;" sends an empty header, "Name:" would remove it.
    return [f"{name}: {value}" if value else f"{name};" for name, value in headers]


def pin(handle: Handle, url: str, resolve: Resolve) -> bool:
    """The test seam: `host` answered by `resolve` (CURLOPT_RESOLVE), no DNS asked.

    False when it answers no address at all: the name does not resolve.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    addresses = resolve(host)
    if addresses is not None and not addresses:
        return False
    entries = []
    if addresses:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        shown = ",".join(f"[{a}]" if ":" in a else a for a in addresses)
        # The entry goes into the multi's DNS cache: "-" drops an earlier answer first.
        entries = [f"-{host}:{port}", f"{host}:{port}:{shown}"]
    handle.curl.setopt(pycurl.RESOLVE, entries)
    return True


def sendable(url: str) -> str:
    """The URL as libcurl must get it: percent-encoded (aiohttp encodes what sitemaps leave raw)."""
    return encoded_url(url) if needs_escaping(url) else url
