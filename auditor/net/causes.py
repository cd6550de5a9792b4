"""Why a request got no answer, in plain words: the message of its net.* finding.

`connection refused`, `name not resolved: shop.example`, `TLS: certificate not trusted`,
`timed out after 20 s`: what a reader can act on. The library's own text (aiohttp's exception
class, libcurl's error buffer) is logged under -v by the transport that saw it, never stored.
Both transports say the same words for the same cause. Pure: no I/O.
"""

from __future__ import annotations

import errno
import re

from auditor.codes import Code

# What the operating system says of a failed connection (its errno), in words.
_ERRNO_WORDS = {
    errno.ECONNREFUSED: "connection refused",
    errno.ECONNRESET: "connection reset",
    errno.ECONNABORTED: "connection reset",
    errno.EPIPE: "connection reset",
    errno.ENETUNREACH: "network unreachable",
    errno.EHOSTUNREACH: "host unreachable",
    errno.ETIMEDOUT: "connection timed out",
    errno.EADDRNOTAVAIL: "address not available",
}
# The same causes as libcurl and OpenSSL spell them in their messages (lower-cased).
_TEXT_WORDS = (
    ("connection refused", "connection refused"),
    ("connection reset", "connection reset"),
    ("broken pipe", "connection reset"),
    ("no route to host", "host unreachable"),
    ("network is unreachable", "network unreachable"),
    ("empty reply from server", "closed before any answer"),
    ("server disconnected", "closed before any answer"),
)
CONNECT_FAILED = "could not connect"
CLOSED_EARLY = "closed before any answer"
# OpenSSL's verify results (X509_V_ERR_*, as ssl.SSLCertVerificationError.verify_message and
# libcurl's "SSL certificate problem: ..." spell them), most specific first.
_CERTIFICATE_WORDS = (
    ("expired", "TLS: certificate expired"),
    ("not yet valid", "TLS: certificate not yet valid"),
    ("hostname mismatch", "TLS: certificate for another name"),
    ("subject name", "TLS: certificate for another name"),  # libcurl: "no alternative ... name"
    ("doesn't match", "TLS: certificate for another name"),
    ("revoked", "TLS: certificate revoked"),
)
NOT_TRUSTED = "TLS: certificate not trusted"
BODY_BROKE_OFF = "the body broke off"
MALFORMED = "malformed answer"
HANDSHAKE_FAILED = "TLS: handshake failed"
# OpenSSL's answer when the other side speaks no TLS (plain http on an https URL's port).
_VERIFY_SAID = ("verif", "problem", "subject name")
NO_TLS_HERE = "TLS: handshake failed (the port does not speak TLS: http:// instead?)"
_MILLISECONDS = re.compile(r"after (\d+) milliseconds")
_RESOLVING = re.compile(r"resolve host: (\S+)", re.IGNORECASE)  # libcurl's CURLE 6 message


def cause_words(
    code: Code,
    text: str,
    *,
    number: int | None = None,
    host: str | None = None,
    timeout_s: float | None = None,
    broken_body: bool = False,
) -> str:
    """A net.* finding's message from what the library said (`text`) and knew.

    `number`: a failed connection's errno; `host`: the request's; `timeout_s`: the window that
    ran out; `broken_body`: the answer's head came whole, its body did not.
    """
    if code is Code.NET_DNS:
        named = _RESOLVING.search(text)
        return dns_words(host or (named[1] if named else None))
    if code is Code.NET_TIMEOUT:
        return timeout_words(timeout_s, text)
    if code is Code.NET_TLS:
        return tls_words(text)
    if code is Code.NET_CONNECT:
        return errno_words(number) if number else connect_words(text)
    if code is Code.LOC_INVALID:
        return "not a valid URL"
    return BODY_BROKE_OFF if broken_body else MALFORMED


def errno_words(number: int | None) -> str:
    """A failed connection's cause from its errno: `connection refused`."""
    return _ERRNO_WORDS.get(number or 0, CONNECT_FAILED)


def connect_words(text: str) -> str:
    """A failed connection's cause from a library's message (libcurl's, an OS error's)."""
    lowered = text.lower()
    return next((words for said, words in _TEXT_WORDS if said in lowered), CONNECT_FAILED)


def certificate_words(text: str) -> str:
    """A certificate that failed verification, from OpenSSL's verify message."""
    lowered = text.lower()
    return next((words for said, words in _CERTIFICATE_WORDS if said in lowered), NOT_TRUSTED)


def tls_words(text: str) -> str:
    """A TLS failure that is not a certificate's: the handshake, or no TLS at all."""
    lowered = text.lower()
    # OpenSSL's verify result, as aiohttp's and libcurl's (60: "SSL certificate problem: ...",
    # "... verify result: ...", "no alternative certificate subject name ...") texts carry it.
    if "certificate" in lowered and any(said in lowered for said in _VERIFY_SAID):
        return certificate_words(lowered)
    if "wrong version number" in lowered or "wrong_version_number" in lowered:
        return NO_TLS_HERE
    return HANDSHAKE_FAILED


def timeout_words(seconds: float | None, text: str = "") -> str:
    """`timed out after 20 s`: the window that ran out, or the one libcurl's message names."""
    if (found := _MILLISECONDS.search(text)) is not None:
        seconds = int(found[1]) / 1000
    if seconds is None:
        return "timed out"
    return f"timed out after {_seconds(seconds)} s"


def dns_words(host: str | None) -> str:
    """A host name that did not resolve."""
    return f"name not resolved: {host}" if host else "name not resolved"


def _seconds(value: float) -> str:
    rounded = round(value, 1)
    return f"{rounded:g}" if rounded < 10 else f"{round(value):d}"
