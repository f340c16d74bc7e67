"""Free local addresses for the servers a test starts."""

from __future__ import annotations

import socket


def free_address() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"
