"""``continental web`` (or ``python -m continental_web``) ``[--port 8000] [--host 127.0.0.1]
[--allow-host NAME]``:
start the local web table."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, print the address and serve until interrupted."""
    parser = argparse.ArgumentParser(
        prog="continental web",
        description="Play Continental against the bots in your browser (a local server).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port (0 picks a free one)")
    parser.add_argument(
        "--results", default="results", help="folder whose replay files the start page lists"
    )
    parser.add_argument(
        "--models", default=None, help="folder of PPO models (.npz or .zip) offered by name"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another name the Host header may give (e.g. this machine's LAN address); "
        "the loopback names and --host are always allowed",
    )
    args = parser.parse_args(argv)
    try:
        import uvicorn

        from continental_web.app import create_app
    except ImportError as exc:
        print(f"the web table needs the [web] extra: pip install -e '.[web]' ({exc})")
        return 2
    if not 0 <= args.port <= 65535:
        parser.error(f"--port {args.port} is out of range 0..65535")
    from continental_web.security import LOOPBACK_HOSTS

    hosts = [*LOOPBACK_HOSTS, *args.allow_host]
    if args.host not in ("0.0.0.0", "::", ""):
        hosts.append(f"[{args.host}]" if ":" in args.host else args.host)
    app = create_app(
        models_dir=Path(args.models) if args.models else None,
        results_dir=Path(args.results),
        allowed_hosts=hosts,
    )
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)

    # Print the address once the socket is bound (with --port 0 the port is known only then).
    startup = server.startup

    async def startup_and_announce(sockets=None) -> None:  # type: ignore[no-untyped-def]
        await startup(sockets=sockets)
        for srv in server.servers:
            for sock in srv.sockets:
                host, port = sock.getsockname()[:2]
                print(
                    f"Continental web table: http://{host}:{port}/  (Ctrl-C stops it)", flush=True
                )

    server.startup = startup_and_announce  # type: ignore[method-assign]
    server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
