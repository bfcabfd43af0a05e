"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (stdlib only).

Chromium reads commands from file descriptor 3 and writes replies and events to 4, each message
a JSON object ended by a NUL byte, so the browser test needs no websocket library and no driver.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
)


class BrowserError(Exception):
    pass


def high_pipe() -> tuple[int, int]:
    """A pipe whose ends are numbered 10 or more, clear of the 3 and 4 the child needs."""
    low = os.pipe()
    high = (
        fcntl.fcntl(low[0], fcntl.F_DUPFD_CLOEXEC, 10),
        fcntl.fcntl(low[1], fcntl.F_DUPFD_CLOEXEC, 10),
    )
    for fd in low:
        os.close(fd)
    return high


class Browser:
    """One headless Chromium with one page; collects console errors and uncaught exceptions."""

    def __init__(self, binary: Path = CHROMIUM, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="arena-chromium-")
        to_child_r, self._write = high_pipe()
        self._read, from_child_w = high_pipe()
        # Chromium wants its ends of the pipes as fds 3 and 4: bash puts them there (dash cannot
        # redirect fds above 9).
        redirect = (
            f'exec "$0" "$@" 3<&{to_child_r} 4>&{from_child_w} {to_child_r}<&- {from_child_w}>&-'
        )
        self.proc = subprocess.Popen(
            ["/bin/bash", "-c", redirect, str(binary), *FLAGS, f"--user-data-dir={self.profile}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(to_child_r, from_child_w),
            start_new_session=True,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        self.errors: list[str] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    # -- the protocol ---------------------------------------------------------------------

    def _post(self, method: str, params: dict[str, Any] | None, session: str | None) -> int:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        return self._next

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from chromium in time")
            ready, _, _ = select.select([self._read], [], [], left)
            if ready:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise BrowserError("chromium closed the pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        if "method" in message:
            self._note(message)
        return message

    def _note(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text")
            self.errors.append(f"uncaught: {text}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            self.errors.append(f"console.{params['type']}: {args}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log: {entry.get('text')} {entry.get('url', '')}")

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        wanted = self._post(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                result: dict[str, Any] = message.get("result", {})
                return result

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A command to the page's session."""
        return self.call(method, params, self.session)

    def wait_for(self, method: str, since: int) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            for event in self.events[since:]:
                if event["method"] == method:
                    return event
            since = len(self.events)
            self._receive(deadline)

    # -- what a test does -----------------------------------------------------------------

    def viewport(self, width: int, height: int, mobile: bool = False) -> None:
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )

    def goto(self, url: str) -> None:
        mark = len(self.events)
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired", mark)

    def evaluate(self, expression: str) -> Any:
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """Click the first element matching ``selector``, waiting for a page load if it is a link."""
        is_link = self.evaluate(f"!!document.querySelector({json.dumps(selector)})?.closest('a')")
        mark = len(self.events)
        found = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e) return false; e.click(); return true; })()"
        )
        if not found:
            raise BrowserError(f"nothing matches {selector!r}")
        if is_link:
            self.wait_for("Page.loadEventFired", mark)

    def key(self, key: str, code: str, keycode: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent",
                {"type": kind, "key": key, "code": code, "windowsVirtualKeyCode": keycode},
            )

    def screenshot(self, path: Path, full_page: bool = True) -> None:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            metrics = self.send("Page.getLayoutMetrics")
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": size["width"],
                "height": min(size["height"], 6000),
                "scale": 1,
            }
        data = self.send("Page.captureScreenshot", params)["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._write, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
