"""The gateway pod's forwarder to the development OIDC provider (evaluation installs only).

The issuer is http://localhost:8180/tavolo, where a browser reaches the provider through a
port-forward, and the gateway must reach it at that same URL (discovery, token, keys): this
sidecar listens on the pod's own localhost:8180 and passes each connection on to the provider's
Service. Run with the application image's Python (`python -c`); arguments: the port to listen
on, the Service's host and port.
"""

import asyncio
import contextlib
import socket
import sys


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        pass


async def forward(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter,
                  host: str, port: int) -> None:
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
    except OSError as error:
        print(f"forward: cannot reach {host}:{port}: {error}", file=sys.stderr, flush=True)
        client_writer.close()
        return
    await asyncio.gather(pipe(client_reader, upstream_writer), pipe(upstream_reader, client_writer))
    for writer in (client_writer, upstream_writer):
        writer.close()


async def main(listen_port: int, host: str, port: int) -> None:
    servers = [await asyncio.start_server(lambda r, w: forward(r, w, host, port), "127.0.0.1", listen_port)]
    if socket.has_ipv6:  # "localhost" may resolve to ::1 first
        with contextlib.suppress(OSError):  # no IPv6 in this pod
            servers.append(await asyncio.start_server(lambda r, w: forward(r, w, host, port), "::1", listen_port))
    print(f"forward: localhost:{listen_port} -> {host}:{port}", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3])))
