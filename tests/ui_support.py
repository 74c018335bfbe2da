"""The inspector for the tests: `lethe ui` as a real subprocess, a small cookie-keeping HTTP
client for the server-side checks, and headless Debian Chromium driven by Playwright."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from tests.mcp_support import LETHE, free_port, stop, wait_for_port

CHROMIUM = os.environ.get("LETHE_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",  # the tests may run as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these Chromium keeps dialling Google's hosts, which this machine refuses.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def ui_server(
    db: Path | str, *extra: str, host: str = "127.0.0.1", env: dict[str, str] | None = None
) -> Iterator[str]:
    """`lethe ui` on a free port; yields the address it printed, stops it afterwards."""
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    proc = subprocess.Popen(
        [LETHE, "ui", "--db", str(db), "--host", host, "--port", str(port), *extra],
        env=clean | (env or {}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"lethe ui exited: {proc.stderr.read()}")
        url = line.split(" at ", 1)[1].strip()
        wait_for_port(proc, port, "lethe ui")
        yield url
    finally:
        stop(proc)


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: str


@dataclass
class Visitor:
    """A browser without a screen: keeps cookies, sends forms, follows nothing by itself."""

    base: str
    cookies: dict[str, str] = field(default_factory=dict)
    host: str | None = None

    def request(
        self,
        method: str,
        path: str,
        form: dict[str, str | list[str]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> Answer:
        parts = urlsplit(self.base)
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
        sent = dict(headers or {})
        if self.host:
            sent["Host"] = self.host
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form, doseq=True).encode()
            sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
        conn.request(method, path, body=body, headers=sent)
        response = conn.getresponse()
        text = response.read().decode("utf-8", "replace")
        for name, value in response.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";", 1)[0]
        conn.close()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, text)

    def get(self, path: str, **headers: str) -> Answer:
        return self.request("GET", path, headers=headers)

    def post(self, path: str, form: dict[str, str | list[str]], **headers: str) -> Answer:
        return self.request("POST", path, form, headers)

    @property
    def csrf(self) -> str:
        if "lethe_csrf" not in self.cookies:
            self.get("/memories")
        return self.cookies["lethe_csrf"]


def plan_id(page: str) -> str:
    found = re.search(r"/plans/(plan_[0-9a-f]+)/execute", page)
    assert found, "the page holds no plan to confirm"
    return found.group(1)


def change_id(page: str) -> str:
    """The held change (an update or revert waiting for its confirm) a page offers."""
    found = re.search(r"/changes/(chg_[0-9a-f]+)/execute", page)
    assert found, "the page holds no change to confirm"
    return found.group(1)
