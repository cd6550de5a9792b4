"""Access log lines in every format the auditor reads, for the tests and the screenshots.

The addresses are real ones of the shipped ranges (auditor/wings/logs/crawler_ranges.json):
66.249.66.0/27 and 2001:4860:4801:10::/64 are Googlebot's, 157.55.39.0/24 Bingbot's;
203.0.113.0/24 is TEST-NET-3 (RFC 5737), a public address of no crawler.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

GOOGLEBOT_IP = "66.249.66.1"
GOOGLEBOT_IP6 = "2001:4860:4801:10::1"
BINGBOT_IP = "157.55.39.1"
SPOOFER_IP = "203.0.113.7"
PROXY_IP = "10.0.0.5"
GOOGLEBOT_UA = (
    "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like "
    "Gecko) Chrome/124.0.6367.201 Mobile Safari/537.36 (compatible; Googlebot/2.1; "
    "+http://www.google.com/bot.html)"
)
IMAGE_UA = "Googlebot-Image/1.0"
BINGBOT_UA = (
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; "
    "+http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36"
)
BROWSER_UA = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Safari/537.36"
)


@dataclass(frozen=True)
class Hit:
    """One request as a server logs it."""

    address: str
    when: datetime
    path: str
    status: int = 200
    agent: str = GOOGLEBOT_UA
    host: str = "www.example.com"
    method: str = "GET"


def clf_time(when: datetime) -> str:
    """`10/Oct/2025:13:55:36 +0000`."""
    return when.strftime("%d/%b/%Y:%H:%M:%S %z")


def _quoted(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def common(hit: Hit) -> str:
    request = f"{hit.method} {hit.path} HTTP/1.1"
    return f'{hit.address} - - [{clf_time(hit.when)}] "{_quoted(request)}" {hit.status} 512'


def combined(hit: Hit) -> str:
    return f'{common(hit)} "-" "{_quoted(hit.agent)}"'


def vhost_combined(hit: Hit) -> str:
    return f"{hit.host}:443 {combined(hit)}"


def nginx_json(hit: Hit) -> str:
    """As `log_format main escape=json '{"remote_addr":"$remote_addr",...}'` writes it."""
    return json.dumps(
        {
            "time_iso8601": hit.when.isoformat(),
            "remote_addr": hit.address,
            "request": f"{hit.method} {hit.path} HTTP/1.1",
            "status": str(hit.status),
            "body_bytes_sent": "512",
            "http_user_agent": hit.agent,
            "host": hit.host,
        }
    )


def caddy(hit: Hit) -> str:
    """As Caddy's JSON access log writes it."""
    return json.dumps(
        {
            "level": "info",
            "ts": hit.when.timestamp(),
            "logger": "http.log.access",
            "msg": "handled request",
            "request": {
                "remote_ip": hit.address,
                "remote_port": "41342",
                "proto": "HTTP/2.0",
                "method": hit.method,
                "host": hit.host,
                "uri": hit.path,
                "headers": {"User-Agent": [hit.agent]},
            },
            "status": hit.status,
            "size": 512,
        }
    )


FORMATS = {
    "combined": combined,
    "common": common,
    "vhost-combined": vhost_combined,
    "json": nginx_json,
    "caddy": caddy,
}


def write_log(path: Path, lines: Iterable[str], *, gzipped: bool = False) -> Path:
    """The lines as a log file (gzip-compressed when asked)."""
    data = "".join(line + "\n" for line in lines).encode()
    path.write_bytes(gzip.compress(data) if gzipped else data)
    return path


def daily(start: datetime, days: int, path: str, **fields: object) -> list[Hit]:
    """One hit a day on `path`, from `start` on."""
    return [Hit(when=start + timedelta(days=day), path=path, **fields) for day in range(days)]  # type: ignore[arg-type]
