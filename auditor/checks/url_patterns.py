"""URL patterns (`--include`, `--exclude`, `--accept-file`) matched in time linear in the URL.

Python's `re` backtracks: `example\\.com/(\\w+/?)*$`, a plausible hand-written line, takes
longer than any run against a URL of 34 letters and a `-`, and holds the interpreter while it
does (no signal is handled). RE2 (github.com/google/re2/wiki/WhyRE2) matches in time linear in
the text whatever the pattern, in bounded memory. Its syntax is Python's less what needs
backtracking (backreferences, lookarounds, possessive and atomic groups) and a few spellings
(`\\z` for `\\Z`); `\\w`, `\\d`, `\\s` and `\\b` are ASCII (docs/reference/options.md#patterns).
A pattern RE2 refuses is a ValueError naming why, never a pattern that matches nothing.
Pure: no I/O.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import re2

# RE2's own default: the most one compiled pattern may take (re2.h, `max_mem`).
PATTERN_MAX_MEM_BYTES = 8 << 20


@functools.cache
def _options() -> re2.Options:
    options = re2.Options()
    options.log_errors = False  # RE2 would print its refusal to stderr: it is the caller's
    options.never_capture = True  # whether a pattern matches is all that is asked
    options.max_mem = PATTERN_MAX_MEM_BYTES
    return options


def check_pattern(pattern: str) -> None:
    """Nothing when RE2 takes `pattern`; ValueError saying why when it does not."""
    _compiled(pattern)


def _compiled(pattern: str) -> re2._Regexp:
    try:
        return re2.compile(pattern, _options())
    except re2.error as exc:
        reason = exc.args[0] if exc.args else "not a pattern"
        text = reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)
        raise ValueError(f"{text} (RE2 syntax: no backreferences or lookarounds)") from None
    except UnicodeEncodeError:  # a lone surrogate: no text matches it
        raise ValueError("holds a character that is no Unicode text") from None


class UrlPatterns:
    """Patterns of which any may match, searched (as `re.search` does) in one pass.

    They are joined into one alternation, compiled once; when that one is past RE2's memory
    bound (thousands of long patterns), each is searched in turn, still in linear time.
    """

    def __init__(self, patterns: Sequence[str]) -> None:
        """ValueError for the first of `patterns` that RE2 does not take, saying why."""
        for pattern in patterns:  # each alone first: a bad one is named, never joined
            check_pattern(pattern)
        try:
            joined = "|".join(f"(?:{pattern})" for pattern in patterns)
            self._any = [_compiled(joined)] if patterns else []
        except ValueError:  # too large as one: searched one by one
            self._any = [_compiled(pattern) for pattern in patterns]

    def __bool__(self) -> bool:
        return bool(self._any)

    def search(self, url: str) -> bool:
        """Whether any pattern matches somewhere in `url`."""
        text = url.encode("utf-8", "surrogatepass")
        return any(pattern.search(text) is not None for pattern in self._any)
