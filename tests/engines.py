"""Which transport the URL checks of a test run on: both must pass the same tests.

A test module that exercises the check path uses the `engine` fixture (tests/conftest.py), which
runs each of its tests once with libcurl's transport and once with aiohttp's; `run_audit` and
the CLI helpers read the engine from here.
"""

from __future__ import annotations

from contextvars import ContextVar

from auditor.config import Engine

ENGINE: ContextVar[Engine] = ContextVar("ENGINE", default=Engine.CURL)
ENGINES = tuple(Engine)
