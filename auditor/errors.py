"""Every exception the auditor raises on purpose, and the exit code each one means.

    AuditorError
    ├── UsageError ........................ exit 2: the command cannot run as given
    │   ├── ConfigError                     a value out of its range (AuditConfig)
    │   ├── ConfigFileError                 --config: unreadable, unknown key, wrong type
    │   ├── TargetError                     a TARGET that is neither a URL nor a file
    │   ├── BaselineError                   --baseline: missing, truncated, not a report
    │   ├── HistoryError                    --history: not ours, damaged, newer, or in use
    │   ├── LoopError                       --loop uvloop without uvloop installed
    │   ├── ReportReadError                 a report to read back: missing, truncated, not ours
    │   └── ReportError                     the report folder cannot be written (before the run)
    ├── RunError .......................... exit 3: the run itself failed, not the site
    │   ├── ReportWriteError                a report or output failed mid-run or at the end
    │   ├── HistoryWriteError               the --history file failed mid-run (earlier runs kept)
    │   └── HelperError                     a helper process broke off (the run: internal.error)
    │       ├── FrameError                  a frame broke off
    │       └── ParseHelperError            a parse helper ended midway through a document
    ├── SiteError ......................... no exit code of its own: a finding (exit 1)
    │   ├── FetchError                      no usable answer; `code` is the finding (net.*)
    │   │   └── GivenUpError                the host was given up by the breaker: not sent
    │   └── CompressionError                broken gzip or deflate: sitemap.compression_error
    ├── LocalStateError ................... no exit code: the --state file or a kept copy
    │   ├── StateFormatError                the state file is not ours: a warning, run goes on
    │   └── StateReadError                  a kept copy unreadable after its 304: internal.error
    └── MissingExtraError (an ImportError)  the library's urls_frame() without pandas installed

    BlockedAddressError (an OSError)        raised inside aiohttp's resolver, so that aiohttp
                                            wraps it; the edge turns it into
                                            FetchError(net.blocked_address)

Pure: no I/O.

See docs/explanation/design.md#exit-codes.
"""

from __future__ import annotations

from enum import IntEnum
from typing import ClassVar, TypeVar

from auditor.codes import Code
from auditor.models import Finding

E = TypeVar("E", bound=BaseException)


class ExitCode(IntEnum):
    """What the process returns (docs/explanation/design.md#exit-codes)."""

    OK = 0  # nothing at or above --fail-on, and no regression
    FINDINGS = 1  # findings at or above --fail-on, or regressions (what the site does wrong)
    USAGE = 2  # usage or configuration error
    FAILED = 3  # the run did not finish (interrupted, an internal failure), or reached no target


class AuditorError(Exception):
    """The root of the auditor's own exceptions."""


class UsageError(AuditorError):
    """A command line or configuration that cannot run: one line on stderr, exit 2."""

    exit_code: ClassVar[ExitCode] = ExitCode.USAGE


class ConfigError(UsageError):
    """A configuration value out of its range."""


class ConfigFileError(UsageError):
    """The `--config` file cannot be used, naming the file and the key."""


class TargetError(UsageError):
    """A TARGET argument that is neither a URL nor an existing file."""


class BaselineError(UsageError):
    """A baseline that cannot be compared with."""


class HistoryError(UsageError):
    """A `--history` file that cannot be used; it is left as it is."""


class LoopError(UsageError):
    """The event loop asked for is not installed."""


class ReportReadError(UsageError):
    """A JSON report that cannot be read back (read_report, the pre-commit hook)."""


class ReportError(UsageError):
    """The report cannot be written where asked (folder missing and not creatable, read-only)."""


class RunError(AuditorError):
    """The run itself failed (not the site): exit 3."""

    exit_code: ClassVar[ExitCode] = ExitCode.FAILED


class ReportWriteError(RunError):
    """Writing a report failed mid-run or at its end (a full disk)."""


class HistoryWriteError(RunError):
    """The `--history` file failed mid-run (a full disk): what earlier runs wrote is kept."""


class HelperError(RunError):
    """A helper process (`--workers`) broke off."""


class FrameError(HelperError):
    """A helper's stream broke off in the middle of a frame."""


class ParseHelperError(HelperError):
    """A parse helper went away in the middle of a document."""


class SiteError(AuditorError):
    """Something the site did wrong; it becomes a finding, never an exit code of its own."""


class FetchError(SiteError):
    """A request that got no usable answer; `code` is the finding to report (net.*).

    `detail` goes into the finding's detail (`given_up_after`: the host was not asked).
    """

    # What the HTTP library itself said (aiohttp's exception, libcurl's error): the opener logs
    # it beside the finding's words under -v; it is never stored (auditor.net.causes).
    library: str | None = None

    def __init__(self, code: Code, message: str, **detail: int | str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.detail = detail

    def finding(self, *, url: str) -> Finding:
        """The finding to report for `url`."""
        return Finding(self.code, self.message, url, None, dict(self.detail) or None)


class GivenUpError(FetchError):
    """The host was given up by the breaker: the request was not sent (never retried).

    `tried`: this URL's own failure when it was requested before the host was given up (its
    retry is what was not sent); the finding then says so.
    """

    def __init__(
        self, host: str, *, code: Code, failures: int, tried: FetchError | None = None
    ) -> None:
        given_up = f"{host} given up after {failures} network failures in a row"
        if tried is None:
            super().__init__(code, f"{given_up}; not requested", given_up_after=failures)
            return
        message = f"{tried.message} (not retried: {given_up})"
        detail = {**tried.detail, "given_up_after": failures, "requested": True}
        super().__init__(tried.code, message, **detail)


class CompressionError(SiteError):
    """Compressed data that is corrupt, truncated, followed by junk, or of an unknown coding."""


class LocalStateError(AuditorError):
    """The `--state` file or its kept copies: they only spare downloads, so never fatal."""


class StateFormatError(LocalStateError):
    """The state file is not one this version writes: ignored, with one warning."""


class StateReadError(LocalStateError):
    """A kept body could not be read back after its 304: our disk's fault, not the site's."""


class MissingExtraError(AuditorError, ImportError):
    """An optional extra that is not installed (`pip install 'sitemap-auditor[pandas]'`)."""


class BlockedAddressError(OSError):
    """Every address of a host is refused by the private-address guard.

    An OSError, because it is raised inside aiohttp's resolver, which wraps OSErrors in its
    connector error; `net.client` turns it into FetchError(net.blocked_address).

    See docs/explanation/design.md#private-addresses.
    """


def write_failure_in(exc: BaseException) -> ReportWriteError | HistoryWriteError | None:
    """The failure to write a file of the run that is `exc` or inside it (a task group's).

    A report or an output, a scratch file, or the history: whichever met a full disk first.
    """
    return failure_in(exc, ReportWriteError) or failure_in(exc, HistoryWriteError)


def failure_in(exc: BaseException, kind: type[E]) -> E | None:
    """The exception of `kind` that is `exc` or inside it (a task group's), if any."""
    if isinstance(exc, kind):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            if (found := failure_in(inner, kind)) is not None:
                return found
    return None
