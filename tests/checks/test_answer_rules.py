"""What an answer says about the page: statuses, bot shields, slowness (pure)."""

from __future__ import annotations

import pytest

from auditor.checks.answer_rules import (
    bot_challenge,
    slow_finding,
    status_findings,
)


@pytest.mark.parametrize(
    ("status", "code"),
    [
        (200, None),
        (204, None),
        (404, "http.not_found"),
        (410, "http.not_found"),
        # A plain 401 or 403 is the site's own refusal (Search Console names both).
        (401, "http.unauthorized"),
        (403, "http.forbidden"),
        (429, "http.blocked"),
        (400, "http.client_error"),
        (418, "http.client_error"),
        (451, "http.client_error"),
        (500, "http.server_error"),
        (503, "http.server_error"),
        (300, "redirect.bad_location"),
        (304, "redirect.bad_location"),
        (102, "net.protocol"),
        (999, "net.protocol"),
    ],
)
def test_status_findings(status: int, code: str | None) -> None:
    found = [item.code.value for item in status_findings(status, url="u", challenge=None)]
    assert found == ([code] if code else [])


def test_a_challenge_is_blocked_whatever_its_status() -> None:
    found = status_findings(503, url="u", challenge="cloudflare")
    assert [(item.code.value, item.detail) for item in found] == [
        ("http.blocked", {"status": 503, "challenge": "cloudflare"})
    ]


@pytest.mark.parametrize(
    ("status", "headers", "body", "vendor"),
    [
        (403, {"cf-mitigated": "challenge"}, b"", "cloudflare"),
        (503, {}, b"<html><title>Just a moment...</title>", "cloudflare"),
        (403, {}, b"<script src='https://geo.captcha-delivery.com/x'>", "datadome"),
        (405, {"x-amzn-waf-action": "captcha"}, b"", "aws-waf"),
        (403, {}, b"<div id='px-captcha'>", "perimeterx"),
        (403, {}, b"<html><title>Access Denied</title>", "akamai"),
        (403, {}, b"plain forbidden", None),
        (200, {}, b"<title>Just a moment...</title>", None),  # a 200 page about waiting
        (503, {}, b"", None),
    ],
)
def test_bot_challenge(
    status: int, headers: dict[str, str], body: bytes, vendor: str | None
) -> None:
    assert bot_challenge(status, headers, body) == vendor


def test_slow_finding() -> None:
    assert slow_finding(2.9, url="u", slow_s=3.0) is None
    found = slow_finding(3.25, url="u", slow_s=3.0)
    assert found is not None
    assert (found.code.value, found.detail) == (
        "url.slow",
        {"elapsed_ms": 3250, "threshold_ms": 3000},
    )
