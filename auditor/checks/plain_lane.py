"""The common check in a few calls: a listed URL sent at once, its plain 2xx page judged here.

Most URLs of a healthy site take this lane (docs/explanation/design.md#engine): the robots.txt of
their host is known and lets them be, nothing stands in their request's way (a free slot of the
host, no pace to keep, no host failing), and the answer is a 2xx page of their own, whole and
quick, with no field a page rarely sends and a head that says nothing of its indexing: a Clean
outcome. Any other answer goes on through a CheckRun, as if it had sent the request itself
(`CheckRun.take_over`): the same policy and rules judge it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from auditor.checks.answer_read import MAX_BODY_PREFIX_BYTES, is_html
from auditor.checks.check_run import CheckRun
from auditor.checks.page_head import NOTHING_SAID, read_head
from auditor.config import Method
from auditor.errors import FetchError
from auditor.limits import MAX_VALIDATOR_CHARS
from auditor.net.transport import PLAIN_FIELDS, Answer
from auditor.sitemap.plain_urls import Clean
from auditor.urls import authority_of, netloc_of

if TYPE_CHECKING:
    from auditor.checks.engine import CheckEngine


class PlainLane:
    """The engine's quick lane: what it needs of the run, looked up once."""

    def __init__(self, engine: CheckEngine[Any]) -> None:
        requests = engine.requests
        self._engine = engine
        self._known = engine.known_robots
        self._gate = requests.gate
        self._pacer = requests.gate.pacer
        self._breaker = requests.gate.breaker
        self._send = requests.transport.send
        self._timeouts = requests.policy.timeouts
        self._agent = engine.agent
        self._agents = engine.agents
        self._slow_s = engine.slow_s
        self._method = engine.method
        self._head_refused = requests.head_refused
        # -v says every request through the policy (auditor.net.fetch), and --remap sends them
        # where its rules say there: no lane then.
        self.open = not requests.logged and not requests.remap
        self._last = ("\0", "")  # (`scheme://authority/`, its lower-case host[:port])

    def send(self, key: object, loc: str, origin: str) -> bool:
        """Send `loc`'s request at once, if nothing stands in its way (False: it does not)."""
        known = self._known
        if origin not in known or not self.open:
            return False
        robots = known[origin]
        if robots is not None and not robots.allows(loc, self._agent):
            return False  # blocked: the CheckRun says so
        prefix, host = self._last
        if not loc.startswith(prefix):
            host = netloc_of(loc)
            self._last = (f"{authority_of(loc)}/", host)
        pacer = self._pacer
        if self._breaker.failing_hosts or pacer.interval_s or host in pacer.hosts:
            return False
        if not self._gate.take(host):
            return False
        method = self._method
        if method is Method.GET or (method is Method.AUTO and host in self._head_refused):
            verb, max_body = "GET", MAX_BODY_PREFIX_BYTES
        else:
            verb, max_body = "HEAD", 0
        done = functools.partial(self._answered, key, loc, origin, host, verb)
        self._send(
            loc, verb=verb, headers=None, max_body=max_body, timeouts=self._timeouts, done=done
        )
        return True

    def _answered(  # noqa: PLR0917 - the request's own facts, bound in `send`
        self, key: object, loc: str, origin: str, host: str, verb: str, answer: Answer | FetchError
    ) -> None:
        """A Clean outcome for a plain page; anything else to a CheckRun, as its own answer."""
        if type(answer) is Answer and 200 <= answer.status < 300 and answer.error is None:
            fields, elapsed_s = answer.fields, answer.elapsed_s
            if (
                PLAIN_FIELDS.issuperset(fields)
                and elapsed_s is not None
                and elapsed_s <= self._slow_s
            ):
                body = answer.body
                if (
                    not body
                    or not is_html(fields.get("content-type"))
                    or read_head(body, self._agents, complete=not answer.more) is NOTHING_SAID
                ):
                    self._gate.release(host)
                    self._engine.finished(key, _clean(answer, elapsed_s, verb))
                    return
        engine = self._engine
        run = CheckRun(engine, key, loc, origin, engine.checked)
        run.take_over(host, Method.HEAD if verb == "HEAD" else Method.GET, answer)


def _clean(answer: Answer, elapsed_s: float, verb: str) -> Clean:
    fields = answer.fields
    modified = fields.get("last-modified")
    if modified is not None and (
        modified == fields.get("date") or len(modified) > MAX_VALIDATOR_CHARS
    ):
        modified = None  # dynamic pages say "now"; a validator too long to send back
    etag = fields.get("etag")
    if etag is not None and len(etag) > MAX_VALIDATOR_CHARS:
        etag = None
    return _as_clean((answer.status, round(elapsed_s * 1000), verb, modified, etag))


# A Clean made at tuple speed (a NamedTuple's own __new__ is a Python function).
_as_clean = cast("Callable[[tuple[object, ...]], Clean]", functools.partial(tuple.__new__, Clean))
