"""A loopback TCP proxy that drops connections in the middle of an event stream.

Forwards every connection to Parley and records each request's head. The first `drops`
responses that are `text/event-stream` are cut once `cut_after` bytes of their body went
through: both sockets are closed, so the client sees its connection drop mid-stream (a
chunked body that never ends), as it would when a network path breaks.
"""

from __future__ import annotations

import socket
import threading
from urllib.parse import urlsplit


class DroppingProxy:
    def __init__(self, upstream_url: str, *, cut_after: int, drops: int = 1) -> None:
        target = urlsplit(upstream_url)
        self.upstream = (target.hostname or "127.0.0.1", target.port or 80)
        self.cut_after = cut_after
        self.drops_left = drops
        #: The request heads sent through, in order (`GET /v1/… HTTP/1.1\r\nheaders…`).
        self.requests: list[str] = []
        self.dropped = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._sockets: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def base_url(self) -> str:
        host, port = self._listener.getsockname()[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        with self._lock:
            for s in self._sockets:
                _close(s)

    def _accept(self) -> None:
        while not self._closed:
            try:
                downstream, _ = self._listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.upstream)
            with self._lock:
                self._sockets += [downstream, upstream]
            threading.Thread(target=self._requests, args=(downstream, upstream), daemon=True).start()
            threading.Thread(target=self._responses, args=(upstream, downstream), daemon=True).start()

    def _requests(self, source: socket.socket, sink: socket.socket) -> None:
        pending = b""
        while chunk := _recv(source):
            pending += chunk
            while b"\r\n\r\n" in pending:
                head, pending = pending.split(b"\r\n\r\n", 1)
                text = head.decode("latin-1")
                if text.split(" ", 1)[0] in {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}:
                    with self._lock:
                        self.requests.append(text)
            if not _send(sink, chunk):
                break
        _close(sink)

    def _responses(self, source: socket.socket, sink: socket.socket) -> None:
        seen = b""  # the response bytes since the last event stream's head (to find one)
        counting = False
        body = 0  # the bytes of the event stream's body so far
        while chunk := _recv(source):
            if counting:
                body += len(chunk)
            else:
                seen = (seen + chunk)[-8192:]
                lower = seen.lower()
                at = lower.find(b"content-type: text/event-stream")
                end = lower.find(b"\r\n\r\n", at) if at >= 0 else -1
                if end >= 0:
                    with self._lock:
                        counting = self.drops_left > 0
                        self.drops_left -= int(counting)
                    body = len(seen) - (end + 4)
                    seen = b""
            if counting and body > self.cut_after:
                keep = max(0, len(chunk) - (body - self.cut_after))
                _send(sink, chunk[:keep])
                with self._lock:
                    self.dropped += 1
                break
            if not _send(sink, chunk):
                break
        _close(sink)
        _close(source)


def _recv(s: socket.socket) -> bytes:
    try:
        return s.recv(65536)
    except OSError:
        return b""


def _send(s: socket.socket, data: bytes) -> bool:
    try:
        s.sendall(data)
        return True
    except OSError:
        return False


def _close(s: socket.socket) -> None:
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    s.close()
