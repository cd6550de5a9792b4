"""Headless Chromium over the DevTools protocol, for the HTML report's browser tests.

Debian's `chromium` is started with a throw-away profile and driven through its DevTools
websocket with aiohttp (already a dependency): no driver binary, no download, nothing beyond
what the machine has. Each page load records console errors, uncaught exceptions, dialogs
(alert, confirm) and every network request the page makes.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import os
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")
START_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 30.0
SHUTDOWN_TIMEOUT_S = 10.0
VIEWPORT = (1366, 768)  # a laptop screen

Message = dict[str, Any]


def find_chromium() -> str | None:
    """The browser's path, or None when the machine has none."""
    for name in CANDIDATES:
        if path := shutil.which(name):
            return path
    return None


@dataclass
class PageLoad:
    """What happened while a page loaded and ran."""

    url: str
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)  # every URL the page asked for


class Browser:
    """One headless Chromium process and its DevTools connection."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self._socket = socket
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[Message]] = {}
        self._events: asyncio.Queue[Message] = asyncio.Queue()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self._socket:
            data: Message = message.json()
            future = self._waiting.pop(data.get("id", -1), None)
            if future is None:
                self._events.put_nowait(data)
            elif "error" in data:
                future.set_exception(RuntimeError(f"DevTools: {data['error']}"))
            else:
                future.set_result(data.get("result", {}))

    async def call(self, method: str, session: str | None = None, **params: Any) -> Message:
        """One DevTools command; its result."""
        number = next(self._ids)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[number] = future
        command: Message = {"id": number, "method": method, "params": params}
        if session is not None:
            command["sessionId"] = session
        await self._socket.send_json(command)
        return await asyncio.wait_for(future, CALL_TIMEOUT_S)

    async def load(
        self,
        url: str,
        *,
        javascript: bool = True,
        viewport: tuple[int, int] = VIEWPORT,
        mobile: bool = False,
    ) -> Page:
        """A new tab showing `url`, loaded; events recorded from before the navigation.

        `viewport` in CSS pixels; `mobile`: a phone's (the page's own viewport meta applies).
        """
        target = await self.call("Target.createTarget", url="about:blank")
        attached = await self.call(
            "Target.attachToTarget", targetId=target["targetId"], flatten=True
        )
        session = attached["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            await self.call(f"{domain}.enable", session)
        width, height = viewport
        await self.call(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=mobile,
        )
        if not javascript:
            await self.call("Emulation.setScriptExecutionDisabled", session, value=True)
        page = Page(self, session, PageLoad(url))
        await self.call("Page.navigate", session, url=url)
        await page.wait_for("Page.loadEventFired")
        await asyncio.sleep(0.3)  # let the page's script run after load
        page.drain()
        return page


class Page:
    """One tab: evaluate expressions, take screenshots, read what was recorded."""

    def __init__(self, browser: Browser, session: str, record: PageLoad) -> None:
        self._browser = browser
        self._session = session
        self.record = record

    async def wait_for(self, method: str) -> None:
        """Record events until `method` arrives."""
        while True:
            event = await asyncio.wait_for(self._browser._events.get(), CALL_TIMEOUT_S)
            self._note(event)
            if event.get("method") == method and event.get("sessionId") == self._session:
                return

    def drain(self) -> None:
        """Record the events that arrived so far."""
        while not self._browser._events.empty():
            self._note(self._browser._events.get_nowait())

    def _note(self, event: Message) -> None:
        if event.get("sessionId") != self._session:
            return
        params = event.get("params", {})
        match event.get("method"):
            case "Runtime.consoleAPICalled" if params.get("type") in {"error", "assert"}:
                texts = [str(arg.get("value", arg.get("description"))) for arg in params["args"]]
                self.record.console_errors.append(" ".join(texts))
            case "Runtime.exceptionThrown":
                self.record.console_errors.append(str(params["exceptionDetails"]))
            case "Log.entryAdded" if params["entry"]["level"] == "error":
                self.record.console_errors.append(params["entry"]["text"])
            case "Page.javascriptDialogOpening":
                self.record.dialogs.append(params.get("message", ""))
                task = self._browser.call("Page.handleJavaScriptDialog", self._session, accept=True)
                asyncio.ensure_future(task)  # noqa: RUF006 - answered while we go on
            case "Network.requestWillBeSent":
                self.record.requests.append(params["request"]["url"])
            case _:
                pass

    async def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (DevTools runs it even with scripts off)."""
        result = await self._browser.call(
            "Runtime.evaluate", self._session, expression=expression, returnByValue=True
        )
        self.drain()
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluate {expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def screenshot(self, path: Path, *, full_height: int | None = None, top: int = 0) -> Path:
        """A PNG of the viewport (or of `full_height` pixels of the page from `top` down)."""
        params: dict[str, Any] = {"format": "png"}
        if full_height is not None:
            width = VIEWPORT[0]
            params["clip"] = {"x": 0, "y": top, "width": width, "height": full_height, "scale": 1}
            params["captureBeyondViewport"] = True
        shot = await self._browser.call("Page.captureScreenshot", self._session, **params)
        path.write_bytes(base64.b64decode(shot["data"]))
        self.drain()
        return path


@contextlib.asynccontextmanager
async def chromium(executable: str) -> AsyncIterator[Browser]:
    """A headless Chromium for the block; its profile folder is removed afterwards."""
    # Chromium's helper processes may still be writing the profile while it is removed.
    with tempfile.TemporaryDirectory(
        prefix="sitemap-audit-chromium-", ignore_cleanup_errors=True
    ) as profile:
        process = await asyncio.create_subprocess_exec(
            executable,
            "--headless",
            "--no-sandbox",  # root in a container has no user namespaces for the sandbox
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "about:blank",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
            start_new_session=True,  # its helpers share its process group, ended with it
        )
        try:
            endpoint = await _devtools_endpoint(Path(profile), process)
            async with (
                aiohttp.ClientSession() as session,
                session.ws_connect(endpoint, max_msg_size=0) as socket,
            ):
                browser = Browser(socket)
                try:
                    yield browser
                finally:
                    with contextlib.suppress(Exception):  # it may close before it answers
                        await asyncio.wait_for(browser.call("Browser.close"), 5)
                    browser._reader.cancel()
        finally:
            await _end(process)


async def _end(process: asyncio.subprocess.Process) -> None:
    """Let Chromium exit by itself (Browser.close), else end its process group."""
    try:
        await asyncio.wait_for(process.wait(), SHUTDOWN_TIMEOUT_S)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the group we started: it and its helpers
        await process.wait()


async def _devtools_endpoint(profile: Path, process: asyncio.subprocess.Process) -> str:
    """Chromium writes its port and browser path to DevToolsActivePort once it listens."""
    marker = profile / "DevToolsActivePort"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + START_TIMEOUT_S
    while loop.time() < deadline:
        if process.returncode is not None:
            raise RuntimeError(f"chromium exited with {process.returncode}")
        text = await asyncio.to_thread(_read_if_there, marker)
        lines = text.split()
        if len(lines) == 2:
            return f"ws://127.0.0.1:{lines[0]}{lines[1]}"
        await asyncio.sleep(0.05)
    raise RuntimeError("chromium did not open its DevTools port")


def _read_if_there(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def require_browser() -> bool:
    """CI sets SITEMAP_AUDIT_REQUIRE_BROWSER=1: there a missing browser fails, never skips."""
    return os.environ.get("SITEMAP_AUDIT_REQUIRE_BROWSER", "") not in {"", "0"}
