"""What one URL's answer says about the page: HTTP errors, bot challenges, noindex, slowness.

Reads a status, headers and at most a small prefix of the body. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from auditor.codes import Code
from auditor.models import Finding, finding

_NOT_FOUND = frozenset({404, 410})
# Refused to us: maybe not to a search engine (DESIGN §4 http.blocked).
_BLOCKED = frozenset({401, 403, 429})
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

# X-Robots-Tag rules that stop indexing (Google: noindex, or none = noindex, nofollow).
_NOINDEX = frozenset({"noindex", "none"})
# An X-Robots-Tag value may start with the user agent it is for ("googlebot: noindex").
_AGENT_PREFIX = re.compile(r"\s*([a-z0-9_-]+)\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)
# Rule names that take a value after a colon: not user agents.
_VALUED_RULES = frozenset({"unavailable_after", "max-snippet", "max-image-preview"})
_VALUED_RULES |= {"max-video-preview", "indexifembedded"}
_NOINDEX_WORDS = tuple(word.encode() for word in _NOINDEX)
_META = re.compile(rb"<meta\b[^>]*>", re.IGNORECASE)
_ATTRIBUTE = re.compile(rb"""([a-z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
# Who robots rules in a page can address and still concern us.
SEARCH_AGENTS = frozenset({"robots", "googlebot"})
_SEARCH_AGENT_WORDS = tuple(agent.encode() for agent in SEARCH_AGENTS)


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
    if 200 <= status < 300:
        return None
    return _BY_CLASS.get(status // 100, Code.NET_PROTOCOL)


def bot_challenge(status: int, headers: Mapping[str, str], body: bytes) -> str | None:
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


def header_noindex(values: Iterable[str], agents: frozenset[str]) -> bool:
    """Whether X-Robots-Tag values forbid indexing to everyone or to one of `agents`.

    Google: `X-Robots-Tag: noindex` applies to every crawler; `googlebot: noindex` to one.
    """
    for value in values:
        rules = value
        prefix = _AGENT_PREFIX.fullmatch(value)
        if prefix is not None and prefix[1].lower() not in _VALUED_RULES:
            if prefix[1].lower() not in agents:
                continue
            rules = prefix[2]
        if any(rule.strip().lower() in _NOINDEX for rule in rules.split(",")):
            return True
    return False


def meta_noindex(html: bytes) -> bool:
    """Whether a page's `<meta name="robots|googlebot" content="...noindex...">` says so."""
    lowered = html.lower()
    # Most pages name neither a rule nor an agent: a few substring scans, no tag parsed.
    if not any(word in lowered for word in _NOINDEX_WORDS) or not any(
        agent in lowered for agent in _SEARCH_AGENT_WORDS
    ):
        return False
    for tag in _META.findall(lowered):
        attributes = {
            name.lower(): (quoted or single or bare).strip().lower()
            for name, quoted, single, bare in _ATTRIBUTE.findall(tag)
        }
        if attributes.get(b"name", b"").decode("latin-1") not in SEARCH_AGENTS:
            continue
        content = attributes.get(b"content", b"").decode("latin-1")
        if any(rule.strip() in _NOINDEX for rule in content.split(",")):
            return True
    return False


def slow_finding(elapsed_s: float, *, url: str, slow_s: float) -> Finding | None:
    """url.slow when the answer took longer than the threshold."""
    if elapsed_s <= slow_s:
        return None
    elapsed_ms, threshold_ms = round(elapsed_s * 1000), round(slow_s * 1000)
    return finding(Code.URL_SLOW, url=url, elapsed_ms=elapsed_ms, threshold_ms=threshold_ms)
