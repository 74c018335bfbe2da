"""A local stand-in for the model hub: serves the real MiniLM files over HTTP at the hub's
path layout, and can misbehave on purpose (corrupted bytes, 404, a stalled or cut
connection) so the download code is tested against a real socket, not a mock."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from lethe.embed import download


@dataclass
class Behaviour:
    mode: str = "good"
    """good | corrupt | missing | stall | cut"""
    target: str = "onnx/model.onnx"
    """The file that misbehaves; the others are served as they are."""
    requests: list[str] = field(default_factory=list)


def _handler(source: Path, behaviour: Behaviour) -> type[BaseHTTPRequestHandler]:
    prefix = f"/{download.REPO}/resolve/{download.REVISION}/"

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            behaviour.requests.append(self.path)
            name = self.path.removeprefix(prefix) if self.path.startswith(prefix) else ""
            path = (source / name).resolve()
            if not name or not path.is_relative_to(source.resolve()) or not path.is_file():
                self.send_error(404)
                return
            data = path.read_bytes()
            hit = name == behaviour.target
            if hit and behaviour.mode == "missing":
                self.send_error(404)
                return
            if hit and behaviour.mode == "corrupt":
                at = len(data) // 2
                data = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if hit and behaviour.mode in ("stall", "cut"):
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                if behaviour.mode == "stall":
                    time.sleep(5)
                return
            self.wfile.write(data)

    return Handler


@contextmanager
def model_server(
    source: Path, behaviour: Behaviour | None = None
) -> Iterator[tuple[str, Behaviour]]:
    """Yield the hub endpoint (for HF_ENDPOINT) and the behaviour, which a test may change."""
    b = behaviour or Behaviour()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(source, b))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", b
    finally:
        server.shutdown()
        server.server_close()
