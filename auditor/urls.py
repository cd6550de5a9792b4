"""URL rules: split once, normalise for dedup, compare against a sitemap's location.

Pure: no I/O.
"""

from __future__ import annotations

import re

# hashlib's own blake2b (`hashlib.blake2b is _blake2.blake2b`), imported without hashlib: that
# loads OpenSSL, 3.7 MB of RSS in each parse helper, which hashes nothing else.
from _blake2 import blake2b
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import quote, urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}

# RFC 3986 §2: these never appear raw in a URL; non-ASCII must be percent-encoded too, and a
# '%' must start a two-digit escape.
_NEEDS_ESCAPING = re.compile(r'[\x00-\x20"<>\\^`{|}\x7f]|[^\x00-\x7f]|%(?![0-9A-Fa-f]{2})')
# The same for a URL of ASCII characters without '%' (nearly all): a character class alone.
_RAW_CHARS = re.compile(r'[\x00-\x20"<>\\^`{|}\x7f]')
_BAD_HOST = re.compile(r'[\x00-\x20"<>\\^`{|}\x7f/?#@]')
# What urlsplit lets through around a host, and the fast path does not: whitespace or control
# characters in the authority ("http:// [::1]"), anything but a port after an IPv6 literal.
_BAD_AUTHORITY = re.compile(r"[\s\x00-\x1f\x7f]|\](?!(?::[0-9]*)?\Z)")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")
# A character RFC 3986 never allows raw in a URL: controls, space, "<>\\^`{|}, non-ASCII.
# Browsers send it as the percent-encoded UTF-8 bytes (RFC 3987 §3.1); so do the transports.
RAW_CHARACTER = re.compile(r"[\x00-\x20\"<>\\^`{|}\x7f-\U0010ffff]")
# RFC 3986 §2.2 reserved characters, plus '%' so existing escapes are kept as they are.
URL_SAFE = "!#$%&'()*+,/:;=?@[]~"
# The common case, matched at once instead of through urlsplit (a third of the parse time at
# a million URLs): an ASCII host name, an optional port, no whitespace anywhere. Anything else
# (IPv6 literals, IDNs, odd ports, stray '@') takes urlsplit's path; a test keeps both equal.
_PLAIN_URL = re.compile(
    # Case-sensitive, the scheme spelt out: IGNORECASE makes the match a third slower.
    r"([Hh][Tt][Tt][Pp][Ss]?)://(?:[^\s\x00-\x1f\x7f/?#@\[\]]*@)?"
    r"([A-Za-z0-9._~-]+)(?::([0-9]{1,5}))?"
    r"(/[^?#\s]*)?(?:\?([^#\s]*))?(?:#\S*)?",
)
_MAX_PORT = 65535
# RFC 1035 §2.3.4: a label is 1 to 63 octets, a name at most 255 on the wire (253 as text).
MAX_LABEL_CHARS = 63
MAX_NAME_CHARS = 253
# RFC 3986 §2.3: escapes of these characters mean the characters themselves.
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


@dataclass(slots=True)  # not frozen, as models.CheckResult: made once or twice per URL
class HttpUrl:
    """An absolute http(s) URL, split once.

    Scheme and host lower-cased, port made explicit, path normalised (RFC 3986 §6.2.2: dot
    segments removed, unreserved escapes decoded).
    """

    scheme: str
    host: str
    port: int
    path: str
    query: str

    @property
    def origin(self) -> str:
        """`scheme://host[:port]`, the port only when it is not the scheme's default."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if self.port == DEFAULT_PORTS[self.scheme]:
            return f"{self.scheme}://{host}"
        return f"{self.scheme}://{host}:{self.port}"

    @property
    def key(self) -> str:
        """Normalised form (RFC 3986 §6.2.2): the same page gives the same key.

        A raw character the URL may not hold is keyed as the escape a browser requests
        (`/café` and `/caf%C3%A9` are one page).
        """
        path = self.path or "/"
        if RAW_CHARACTER.search(path) is not None:
            path = quote(path, safe=URL_SAFE)
        key = f"{self.origin}{path}"
        if query := self.query:
            if RAW_CHARACTER.search(query) is not None:
                query = quote(query, safe=URL_SAFE)
            query = _ESCAPE.sub(_upper_escape, query) if "%" in query else query
            key = f"{key}?{query}"
        return key


def dns_name_problem(host: str) -> str | None:
    """Why a URL's host can never be looked up (None: it can be, or it is an IP literal).

    RFC 1035 §2.3.4: labels of 1 to 63 characters (one trailing dot, the root's, aside), 253
    characters in all. Such a URL is well-formed (RFC 3986 §3.2.2 allows `a..b`), but no
    resolver takes its host: Python's idna codec refuses it before getaddrinfo is asked.
    """
    if ":" in host:  # an IPv6 literal
        return None
    name = host.removesuffix(".")
    if len(name) > MAX_NAME_CHARS:
        return f"a name of {len(name)} characters (at most {MAX_NAME_CHARS})"
    for label in name.split("."):
        if not label:
            return "an empty label"
        if len(label) > MAX_LABEL_CHARS:
            return f"a label of {len(label)} characters (at most {MAX_LABEL_CHARS})"
    return None


def split_userinfo(url: str) -> tuple[str, str | None]:
    """The URL without its userinfo (RFC 3986 §3.2.1: `user:password@`), and the userinfo.

    None when there is none. The last `@` of the authority ends it, as urlsplit and browsers
    read it (WHATWG URL: a password may hold a raw `@`).
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url, None
    end = len(rest)
    for stop in "/?#":
        found = rest.find(stop, 0, end)
        end = found if found >= 0 else end
    userinfo, at, host = rest[:end].rpartition("@")
    if not at:
        return url, None
    return f"{scheme}://{host}{rest[end:]}", userinfo


def redact_userinfo(url: str, *, shown: str = "<redacted>") -> str:
    """The URL with its userinfo (a password, or a token as user name) replaced by `shown`."""
    bare, userinfo = split_userinfo(url)
    if userinfo is None:
        return url
    scheme, _, rest = bare.partition("://")
    return f"{scheme}://{shown}@{rest}"


def netloc_of(url: str) -> str:
    """The lower-cased `host[:port]` of an absolute URL, by string slicing (the hot path).

    Equal to `urlsplit(url).netloc.lower()` for the URLs the auditor requests.
    """
    return _split_authority(url)[1].lower()


def authority_of(url: str) -> str:
    """`scheme://authority` of an absolute URL, as written: all its origin depends on."""
    scheme, authority = _split_authority(url)
    return f"{scheme}://{authority}"


def origin_of(url: str) -> str | None:
    """The origin of an http(s) URL (`HttpUrl.origin`); None for anything else."""
    parsed = parse_http_url(url)
    return parsed.origin if parsed is not None else None


def _split_authority(url: str) -> tuple[str, str]:
    scheme, _, rest = url.partition("://")
    for end in "/?#":
        rest = rest.partition(end)[0]
    return scheme, rest


def parse_http_url(text: str) -> HttpUrl | None:
    """Split an absolute http(s) URL; None when it is not one or cannot be parsed."""
    plain = _PLAIN_URL.fullmatch(text)
    if plain is None:
        return split_http_url(text)
    scheme, host, port, path, query = plain.groups()
    scheme = scheme.lower()
    if port is None:
        number = DEFAULT_PORTS[scheme]
    else:
        number = int(port)
        if not 0 < number <= _MAX_PORT:  # RFC 6335: port 0 is reserved, never the default
            return None
    path = normalise_path(path) if path else ""
    return HttpUrl(scheme, host.lower(), number, path, query or "")


# The last few thousand texts `parse_known` met: an hreflang cluster's URLs are each written by
# every page of it (a page's <loc>, and its <xhtml:link>s), most often one page after another.
# Forgotten all at once when full: memory stays flat.
_KNOWN_KEPT = 4096
_known: dict[str, tuple[HttpUrl, int] | None] = {}


def parse_known(text: str) -> tuple[HttpUrl, int] | None:
    """`parse_http_url`, and the digest of the URL's normalised form (`url_digest`)."""
    if text in _known:
        return _known[text]
    if len(_known) >= _KNOWN_KEPT:
        _known.clear()
    url = parse_http_url(text)
    found = _known[text] = (url, url_digest(url.key)) if url is not None else None
    return found


def split_http_url(text: str) -> HttpUrl | None:
    """`parse_http_url` through urllib's urlsplit, for every URL the fast path leaves."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:  # bad IPv6 literal or port
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        return None
    host = parts.hostname
    if not host or _BAD_HOST.search(host) or _BAD_AUTHORITY.search(parts.netloc) or port == 0:
        return None
    if not host.isascii():
        host = _idna(host)
        if host is None:
            return None
    path = normalise_path(parts.path)
    return HttpUrl(scheme, host, port or DEFAULT_PORTS[scheme], path, parts.query)


def _idna(host: str) -> str | None:
    """An internationalised host name in its IDNA (punycode) form, as it is resolved and sent.

    RFC 5891: `bücher.de` is `xn--bcher-kva.de`; hosts compare and deduplicate in this form
    (docs/explanation/rules.md#idna). None when a label cannot be encoded (empty, too long).
    """
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return None


def normalise_path(path: str) -> str:
    """RFC 3986 §6.2.2: decode unreserved escapes, upper-case the others, drop dot segments."""
    if "%" in path:
        path = _ESCAPE.sub(_decode_unreserved, path)
    if "/." in path or path.startswith("."):
        path = _remove_dot_segments(path)
    return path


def _upper_escape(match: re.Match[str]) -> str:
    return match.group(0).upper()


def _decode_unreserved(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else match.group(0).upper()


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4, for an absolute path: "/a/./b/../c" is "/a/c"."""
    output: list[str] = []
    segments = path.split("/")
    for segment in segments:
        if segment == "..":
            if len(output) > 1:
                output.pop()
        elif segment != ".":
            output.append(segment)
    if segments[-1] in (".", ".."):
        output.append("")  # "/a/.." is the folder "/", not the file "/a"
    return "/".join(output)


def needs_escaping(text: str) -> bool:
    """True when the URL has characters that must be percent-encoded (sitemaps.org: escaping)."""
    if text.isascii() and "%" not in text:
        return _RAW_CHARS.search(text) is not None
    return _NEEDS_ESCAPING.search(text) is not None


def digest64(data: bytes) -> int:
    """An unsigned 64-bit blake2b digest of `data`, the same in every process."""
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "little")


# sqlite's integers are signed 64-bit: a digest is stored shifted by 2**63 (order kept).
_DIGEST_SHIFT = 1 << 63


def stored_digest(digest: int) -> int:
    """An unsigned 64-bit digest as a signed 64-bit integer (sqlite's), order kept."""
    return digest - _DIGEST_SHIFT


def digest_of_stored(value: int) -> int:
    """The digest `stored_digest` stored."""
    return value + _DIGEST_SHIFT


def url_digest(key: str) -> int:
    """A non-zero 64-bit digest of a normalised URL, the same in every process."""
    return digest64(key.encode()) or 1


# The documents servers answer a folder with (Apache DirectoryIndex, IIS default documents);
# Google's robots.txt matcher also reads /index.htm and /index.html as / (google/robotstxt,
# robots.cc: "'index.htm' and 'index.html' are normalized to '/'").
INDEX_DOCUMENTS = tuple(
    f"{name}.{kind}"
    for name in ("index", "default")
    for kind in ("html", "htm", "php", "aspx", "asp", "jsp", "shtml", "cgi")
)
_INDEX_DOCUMENT = re.compile(r"/(?:index|default)\.(?:html?|php|aspx?|jsp|shtml|cgi)", re.I)


def index_document_folder(url: HttpUrl) -> str | None:
    """The folder path whose index document `url` names (`/blog/index.html`: `/blog/`).

    None for a URL with a query, or whose last segment is no index document.
    """
    if url.query:
        return None
    cut = url.path.rfind("/")
    if cut < 0 or _INDEX_DOCUMENT.fullmatch(url.path, cut) is None:
        return None
    return url.path[: cut + 1]


def index_twins(url: HttpUrl) -> list[HttpUrl]:
    """The URLs a server may answer with the same document as `url`.

    A folder and its index documents (`/blog/` and `/blog/index.html`, ...); none for another
    URL, or one with a query.
    """
    if url.query:
        return []
    folder = index_document_folder(url)
    if folder is not None:
        return [HttpUrl(url.scheme, url.host, url.port, folder, "")]
    path = url.path or "/"
    if not path.endswith("/"):
        return []
    return [HttpUrl(url.scheme, url.host, url.port, path + name, "") for name in INDEX_DOCUMENTS]


class Mismatch(StrEnum):
    """How a URL's origin differs from its sitemap's (`loc.host_mismatch` detail.kind)."""

    HOST = "host"
    WWW = "www"
    SCHEME = "scheme"
    PORT = "port"


def _strip_www(host: str) -> str:
    return host.removeprefix("www.")


@dataclass(frozen=True, slots=True)
class Scope:
    """Where the URLs of one sitemap may point (sitemaps.org: Sitemap file location)."""

    scheme: str
    host: str
    port: int
    folder: str | None

    @classmethod
    def of(cls, base: HttpUrl, *, with_folder: bool) -> Scope:
        """The scope of a document at `base`; the path rule only applies with `with_folder`."""
        folder = (base.path[: base.path.rfind("/") + 1] or "/") if with_folder else None
        return cls(base.scheme, base.host, base.port, folder)

    def mismatch(self, url: HttpUrl) -> Mismatch | None:
        """The first way `url` leaves this scope's origin, worst first."""
        if url.host != self.host:
            same = _strip_www(url.host) == _strip_www(self.host)
            return Mismatch.WWW if same else Mismatch.HOST
        if url.scheme != self.scheme:
            return Mismatch.SCHEME
        if url.port != self.port:
            return Mismatch.PORT
        return None

    def contains_path(self, url: HttpUrl) -> bool:
        """sitemaps.org: a sitemap in /catalog/ may list URLs under /catalog/ only."""
        return self.folder is None or (url.path or "/").startswith(self.folder)
