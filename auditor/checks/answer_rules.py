"""What one URL's answer says about the page: HTTP errors, bot shields, slowness.

Reads a status, headers and at most a small prefix of the body. Pure: no I/O.
"""

from __future__ import annotations

from typing import Protocol

from auditor.codes import Code
from auditor.models import Finding, finding

_NOT_FOUND = frozenset({404, 410})
# Rate-limited: refused to us, maybe not to a search engine (docs/explanation/rules.md#bot-shields).
# A plain 401 or 403 from the site's own server is no shield: Search Console reports it as "Blocked
# due to unauthorized request (401)" and "Blocked due to access forbidden (403)"
# (docs/explanation/rules.md#status).
_BLOCKED = frozenset({429})
_REFUSED = {401: Code.HTTP_UNAUTHORIZED, 403: Code.HTTP_FORBIDDEN}
# Statuses a bot shield answers with; their body is worth a look.
CHALLENGE_STATUSES = frozenset({403, 429, 503})

# Bot-shield fingerprints, (vendor, header name, header value part) and (vendor, body part).
_CHALLENGE_HEADERS = (
    ("cloudflare", "cf-mitigated", "challenge"),
    ("aws-waf", "x-amzn-waf-action", ""),
    ("datadome", "x-datadome", ""),
    ("sucuri", "x-sucuri-block", ""),
)
_CHALLENGE_BODIES = (
    ("cloudflare", b"challenge-platform"),
    ("cloudflare", b"<title>just a moment...</title>"),
    ("datadome", b"captcha-delivery.com"),
    ("perimeterx", b"px-captcha"),
    ("akamai", b"<title>access denied</title>"),
    ("sucuri", b"sucuri website firewall"),
    ("captcha", b"g-recaptcha"),
    ("captcha", b"h-captcha"),
)


def status_findings(status: int, *, url: str, challenge: str | None) -> list[Finding]:
    """The http.* finding for a final answer (none for 2xx)."""
    if challenge is not None:  # a shield's page, whatever its status, is not the page
        return [finding(Code.HTTP_BLOCKED, url=url, status=status, challenge=challenge)]
    code = _status_code(status)
    if code is None:
        return []
    if 300 <= status < 400:  # 300, 304: a redirect family answer with nothing to follow
        message = f"URL answered HTTP {status} without a redirect to follow"
    elif 100 <= status < 600:
        message = f"URL answered HTTP {status}"
    else:
        message = f"HTTP status {status} is out of range"
    return [finding(code, message, url=url, status=status)]


# RFC 9110 §15: a final status's class as a finding code (1xx is never final; the rest is not
# HTTP); 3xx here is a redirect family answer with nothing to follow (300, 304).
_BY_CLASS = {3: Code.REDIRECT_BAD_LOCATION, 4: Code.HTTP_CLIENT_ERROR, 5: Code.HTTP_SERVER_ERROR}


def _status_code(status: int) -> Code | None:
    if status in _NOT_FOUND:
        return Code.HTTP_NOT_FOUND
    if status in _BLOCKED:
        return Code.HTTP_BLOCKED
    if status in _REFUSED:
        return _REFUSED[status]
    if 200 <= status < 300:
        return None
    return _BY_CLASS.get(status // 100, Code.NET_PROTOCOL)


class Fields(Protocol):
    """Header fields looked up by lower-case name (an Answer, a Headers mapping)."""

    def get(self, name: str, /) -> str | None:
        """The field's first value, or None."""


def bot_challenge(status: int, headers: Fields, body: bytes) -> str | None:
    """The bot shield that answered instead of the page (its vendor), if one did."""
    for vendor, name, part in _CHALLENGE_HEADERS:
        value = headers.get(name)
        if value is not None and part in value.lower():
            return vendor
    if status not in CHALLENGE_STATUSES or not body:
        return None
    lowered = body.lower()
    for vendor, marker in _CHALLENGE_BODIES:
        if marker in lowered:
            return vendor
    return None


def slow_finding(elapsed_s: float, *, url: str, slow_s: float) -> Finding | None:
    """url.slow when the answer took longer than the threshold."""
    if elapsed_s <= slow_s:
        return None
    elapsed_ms, threshold_ms = round(elapsed_s * 1000), round(slow_s * 1000)
    return finding(Code.URL_SLOW, url=url, elapsed_ms=elapsed_ms, threshold_ms=threshold_ms)
