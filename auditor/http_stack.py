"""How a run's HTTP parts are built from its configuration.

Shared by the audit and its shards (--workers): all request, pace and judge alike. One
transport reads the documents (sitemaps, robots.txt, streamed) and sends the URL checks:
libcurl's in the event loop (`--engine curl`, the default), else aiohttp's; one policy above it.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import logging
import os
import random
import tempfile
from collections.abc import AsyncIterator, Awaitable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlsplit

from auditor.clock import Clock
from auditor.config import AuditConfig, Engine
from auditor.discovery.robots import RobotsFetch
from auditor.discovery.robots_fetch import RobotsCache, fetch_robots
from auditor.files import read_input
from auditor.limits import MAX_CA_FILE_BYTES
from auditor.net.address_guard import Reach
from auditor.net.fetch import FetchPolicy, Requests
from auditor.net.host_gate import HostGate
from auditor.net.opener import Opener
from auditor.net.pacer import Pacer
from auditor.net.remap import Remap
from auditor.net.transport import ConnectionPolicy, Timeouts, Transport
from auditor.urls import parse_http_url

if TYPE_CHECKING:  # imported when made: a run on libcurl never loads aiohttp (0.25 s of CPU
    # and 20 MB), and a run that checks no URL never loads the check path.
    from auditor.checks.engine import CheckEngine, Emit
    from auditor.net.client import HttpClient
    from auditor.net.curl_client import CurlTransport

__all__ = ["Openers", "check_engine", "curl_missing", "openers", "run_transport"]

log = logging.getLogger(__name__)
K = TypeVar("K")
# A robots.txt read only to check a cross-submission waits at most this long.
QUICK_TIMEOUT_S = 5.0


@functools.cache
def curl_missing() -> str | None:
    """Why pycurl cannot be imported (None when it can); tried once, where URLs are checked."""
    try:
        import auditor.net.curl_client  # noqa: F401, PLC0415 - see TYPE_CHECKING above
    except ImportError as missing:  # not installed, or its bundled libcurl cannot load
        return f"{type(missing).__name__}: {missing}"
    return None


def usable_engine(config: AuditConfig) -> AuditConfig:
    """The configuration with an engine that can run: aiohttp without pycurl.

    Said once, where URLs are requested (a run that only reads sitemaps loses nothing).
    """
    if config.engine is not Engine.CURL:
        return config
    if (missing := curl_missing()) is not None:
        if not config.no_check or config.crawl:
            log.warning("pycurl cannot be imported (%s): URLs are checked with aiohttp", missing)
        return replace(config, engine=Engine.AIOHTTP)
    return config


@asynccontextmanager
async def run_transport(
    config: AuditConfig, *, reach: Reach, spare: int
) -> AsyncIterator[CurlTransport | HttpClient]:
    """The run's one transport: libcurl's (`--engine curl`), else aiohttp's.

    `spare`: connections beyond `--concurrency` and `--per-host` (the sitemap readers' own).
    """
    if config.engine is Engine.CURL and curl_missing() is None:
        async with _curl_transport(config, reach=reach, spare=spare) as transport:
            yield transport
        return
    async with http_client(config, reach=reach, spare=spare) as client:
        yield client


def connection_policy(config: AuditConfig, *, reach: Reach, spare: int) -> ConnectionPolicy:
    """How the run's transports connect, one record for aiohttp's and libcurl's alike.

    `spare`: connections beyond the check limits (the sitemap readers', robots.txt's).
    """
    return ConnectionPolicy(
        user_agent=config.user_agent,
        headers=config.headers,
        header_hosts=target_hosts(config),
        origin_headers=origin_headers(config),
        concurrency=config.concurrency,
        per_host=config.per_host,
        spare=spare,
        reach=reach,
        ca_file=config.ca_file,
        insecure=config.insecure,
    )


def http_client(config: AuditConfig, *, reach: Reach, spare: int) -> HttpClient:
    """The run's client: `spare` connections beyond the check limits (sitemap readers' own)."""
    from auditor.net.client import HttpClient  # noqa: PLC0415 - aiohttp only where it serves

    return HttpClient(connection_policy(config, reach=reach, spare=spare))


@asynccontextmanager
async def _curl_transport(
    config: AuditConfig, *, reach: Reach, spare: int
) -> AsyncIterator[CurlTransport]:
    """Libcurl's transport; `spare`: connections to a host beyond `--per-host`."""
    from auditor.net import curl_client  # noqa: PLC0415 - see TYPE_CHECKING above

    # CURLOPT_CAINFO replaces libcurl's CAs: the system's and the extra one, in one file.
    bundle = await asyncio.to_thread(_ca_bundle, config.ca_file) if config.ca_file else None
    try:
        policy = connection_policy(config, reach=reach, spare=spare)
        async with curl_client.CurlTransport(replace(policy, ca_file=bundle)) as transport:
            yield transport
    finally:
        if bundle is not None:
            await asyncio.to_thread(bundle.unlink, missing_ok=True)


def _ca_bundle(extra: Path) -> Path:
    """A temporary PEM file: the system's CAs (as OpenSSL finds them), then `extra`'s."""
    import ssl  # noqa: PLC0415 - only with --ca-file

    paths = ssl.get_default_verify_paths()
    system = next((Path(p) for p in (paths.cafile, paths.openssl_cafile) if p), None)
    parts = [system.read_bytes()] if system is not None and system.is_file() else []
    parts.append(read_input(extra, max_bytes=MAX_CA_FILE_BYTES))
    handle, name = tempfile.mkstemp(prefix="sitemap-audit-ca-", suffix=".pem")
    with os.fdopen(handle, "wb") as file:
        file.write(b"\n".join(parts))
    return Path(name)


def target_hosts(config: AuditConfig) -> frozenset[str] | None:
    """The hosts `--header` values are for: the URL targets'; None (every host) for files only.

    With `--remap`, the hosts their requests go to as well (the transports see those).
    """
    hosts = {host for url in target_urls(config) if (host := urlsplit(url).hostname)}
    return frozenset(hosts) or None


def target_urls(config: AuditConfig) -> list[str]:
    """The URL targets, and where `--remap` sends their requests."""
    remap = Remap.of(config.remap)
    urls = [target.url for target in config.targets if target.path is None]
    return urls + [shown for url in urls if (shown := remap.shown(url)) is not None]


def origin_headers(config: AuditConfig) -> dict[str, tuple[tuple[str, str], ...]]:
    """Basic auth for each URL target given with a userinfo, for the target's origin only.

    RFC 7617 §2.2: the credentials' protection space is the origin (scheme, host and port), so
    neither another host a sitemap lists or a redirect reaches, nor plain http for an https
    target, ever gets them. A `--header Authorization` of the user's wins.
    """
    if any(name.lower() == "authorization" for name, _ in config.headers):
        return {}
    found: dict[str, tuple[tuple[str, str], ...]] = {}
    remap = Remap.of(config.remap)
    for target in config.targets:
        if target.userinfo is None:
            continue
        for url in (target.url, remap.shown(target.url)):  # and where --remap sends it
            parsed = parse_http_url(url) if url is not None else None
            if parsed is not None:
                found.setdefault(parsed.origin, (("Authorization", _basic(target.userinfo)),))
    return found


def _basic(userinfo: str) -> str:
    """RFC 7617 §2: `Basic base64(user-id ":" password)`, the URL's escapes decoded (UTF-8)."""
    user, _, password = userinfo.partition(":")
    pair = f"{unquote(user)}:{unquote(password)}".encode()
    return "Basic " + base64.b64encode(pair).decode("ascii")


async def reach_of(config: AuditConfig) -> Reach:
    """A target that is itself private allows private addresses for its run."""
    from auditor.net.names import is_private_host  # noqa: PLC0415 - only where it is asked

    if config.allow_private:
        return Reach.ANY
    remap = Remap.of(config.remap)
    for target in config.targets:
        # Where its requests go: a target remapped onto a local build (--serve) is private.
        url = remap.shown(target.url) or target.url if target.path is None else None
        host = urlsplit(url).hostname if url is not None else None
        if host and await is_private_host(host):
            return Reach.PRIVATE
    return Reach.PUBLIC


@dataclass(frozen=True, slots=True)
class Openers:
    """The run's policies, one per kind of request, sharing one gate (slots and pacing per host)."""

    documents: Opener  # sitemaps and robots.txt: long bodies, bounded per silence
    quick: Opener  # cross-submission look-ups
    checks: Requests  # URL checks: the whole request bounded
    robots: RobotsCache
    gate: HostGate  # what they all wait on: the run's watchdog reads how it moves


def openers(
    config: AuditConfig, transport: Transport, *, clock: Clock, rng: random.Random
) -> Openers:
    """The policies and the robots.txt cache of a run (or of one shard)."""
    pacer = Pacer(
        rate=config.rate,
        backoff_base_s=config.backoff_base_s,
        max_pause_s=config.max_retry_after_s,
    )
    gate = HostGate(pacer, per_host=config.per_host, clock=clock)
    remap = Remap.of(config.remap)
    opener = functools.partial(Opener, clock=clock, rng=rng, gate=gate, remap=remap)
    documents = opener(transport, sitemap_policy(config))
    quick = opener(transport, quick_policy(config))
    checks = Requests(transport, check_policy(config), gate, clock, rng, remap)

    def robots(url: str, *, quick_lookup: bool) -> Awaitable[RobotsFetch]:
        chosen = quick if quick_lookup else documents
        window_s = config.timeout_s
        return fetch_robots(chosen, url, clock=clock, window_s=window_s, rules=not quick_lookup)

    return Openers(documents, quick, checks, RobotsCache(robots), gate)


def check_engine(
    config: AuditConfig, parts: Openers, *, clock: Clock, emit: Emit[Any] | None = None
) -> CheckEngine[Any]:
    """The URL checks' engine, judging by each origin's robots.txt from the shared cache."""
    from auditor.checks.engine import CheckEngine  # noqa: PLC0415 - see TYPE_CHECKING above

    return CheckEngine(
        parts.checks,
        robots=parts.robots.get,
        method=config.method,
        slow_s=config.slow_s,
        robots_agent=config.robots_agent,
        clock=clock,
        window=config.concurrency,
        emit=emit,
    )


def sitemap_policy(config: AuditConfig) -> FetchPolicy:
    """Sitemap bodies: `--sitemap-timeout` for the whole, `--timeout` for each silence."""
    return FetchPolicy(
        timeouts=Timeouts(total_s=config.sitemap_timeout_s, idle_s=config.timeout_s),
        retries=config.retries,
        max_redirects=config.max_redirects,
        backoff_base_s=config.backoff_base_s,
        max_retry_after_s=config.max_retry_after_s,
    )


def check_policy(config: AuditConfig) -> FetchPolicy:
    """URL checks: `--timeout` covers each whole request, and nothing else is needed."""
    timeouts = Timeouts(total_s=config.timeout_s, idle_s=None)
    return replace(sitemap_policy(config), timeouts=timeouts)


def quick_policy(config: AuditConfig) -> FetchPolicy:
    """Cross-submission look-ups: one try, at most QUICK_TIMEOUT_S."""
    quick_s = min(config.timeout_s, QUICK_TIMEOUT_S)
    return replace(
        sitemap_policy(config), timeouts=Timeouts(total_s=quick_s, idle_s=quick_s), retries=0
    )
