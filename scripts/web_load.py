"""A bounded load on the web table over the loopback address: latency and server memory.

Starts ``python -m continental_web`` on 127.0.0.1 (a free port) in a subprocess, then runs
``--clients`` simulated players at once, each playing games against the bots as the page does
(``POST /api/games``, then ``move`` or ``advance`` until the game is over, with a poll of
``GET /api/games/{id}`` and ``/api/options`` between moves), and every tenth game opens its
record as a replay. It stops after ``--requests`` requests or ``--seconds`` seconds, whichever
comes first (both capped), stops the server, and prints each kind of request's count, p50 and
p99 latency, the refusals, and the server's peak resident memory and CPU time.

Every player is the same address (127.0.0.1), as every tab of one browser is: past the
address's cap of games in play a new game is refused (429) and the player tries again a moment
later. A game in play must never vanish: the script exits with status 1 if a request about a
game still being played answers 404.

It only ever talks to the server it started, on 127.0.0.1.

    python scripts/web_load.py --clients 6 --requests 3000 --seconds 120 --seed 1
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import defaultdict
from pathlib import Path

MAX_REQUESTS = 50_000
MAX_SECONDS = 600
MAX_CLIENTS = 32


class Server:
    """``python -m continental_web --port 0`` on 127.0.0.1, its address read from its output."""

    def __init__(self, results: Path) -> None:
        root = Path(__file__).resolve().parents[1]
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "continental_web",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--results",
                str(results),
            ],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if not match:
            self.proc.kill()
            raise SystemExit(f"the server did not start: {line!r}")
        self.url = f"http://127.0.0.1:{match.group(1)}"

    def memory(self) -> dict[str, float]:
        """Peak and current resident memory (MiB) and CPU seconds of the server process."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text()
        fields = dict(re.findall(r"^(VmHWM|VmRSS):\s+(\d+) kB", status, re.M))
        stat = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = 100.0  # os.sysconf("SC_CLK_TCK") on Linux
        return {
            "peak_rss_mib": int(fields["VmHWM"]) / 1024,
            "rss_mib": int(fields["VmRSS"]) / 1024,
            "cpu_s": (int(stat[11]) + int(stat[12])) / ticks,
        }

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Load:
    """Simulated players sharing a request budget and a deadline."""

    def __init__(self, url: str, requests: int, seconds: float, seed: int) -> None:
        self.url = url
        self.budget = requests
        self.deadline = time.monotonic() + seconds
        self.seed = seed
        self.lock = threading.Lock()
        self.times: dict[str, list[float]] = defaultdict(list)
        self.refused: dict[str, int] = defaultdict(int)
        self.games = 0
        self.lost = 0  # requests about a game in play that answered 404 (the game was dropped)

    def _take(self) -> bool:
        with self.lock:
            if self.budget <= 0 or time.monotonic() > self.deadline:
                return False
            self.budget -= 1
            return True

    def call(self, kind: str, method: str, path: str, body: object = None) -> dict | None:
        """One request, timed; None when the budget or the time is spent or it was refused."""
        if not self._take():
            raise StopIteration
        data = None if method == "GET" else json.dumps({} if body is None else body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                payload = json.loads(r.read())
        except urllib.error.HTTPError as exc:
            exc.read()
            with self.lock:
                self.refused[f"{kind} {exc.code}"] += 1
                self.lost += exc.code == 404 and kind in ("move", "advance", "state")
            payload = None
        with self.lock:
            self.times[kind].append(time.perf_counter() - t0)
        return payload

    def player(self, index: int) -> None:
        rng = random.Random(self.seed * 1000 + index)
        try:
            with self.lock:
                if not hasattr(self, "games_offered"):
                    with urllib.request.urlopen(self.url + "/api/options", timeout=60) as r:
                        self.games_offered = json.loads(r.read())["games"]
            while True:
                game = rng.choice(["contract", "contract", "knock", "fifteen"])
                limits = next(iter(self.games_offered[game]["presets"].values()))
                players = rng.randint(limits["min_players"], min(4, limits["max_players"]))
                offered = [b for b in self.games_offered[game]["opponents"] if b != "search"]
                bots = [rng.choice(offered) for _ in range(players - 1)]
                body: dict = {"game": game, "opponents": bots, "seed": str(rng.getrandbits(62))}
                fields = self.games_offered[game]["fields"]  # what this game's start takes
                if "rounds" in fields:
                    body["rounds"] = [rng.randint(1, 7)]
                if "hands" in fields:
                    body["hands"] = 1
                made = self.call("create", "POST", "/api/games", body)
                if made is None:  # the address's cap is full of games in play: wait a moment
                    time.sleep(rng.uniform(0.05, 0.2))
                    continue
                gid, state = made["id"], made["state"]
                while state is not None and not state["game_over"]:
                    if state["your_move"]:
                        text = rng.choice(state["legal"])["text"]
                        state = self.call(
                            "move", "POST", f"/api/games/{gid}/move", {"action": text}
                        )
                    else:
                        state = self.call("advance", "POST", f"/api/games/{gid}/advance")
                    if rng.random() < 0.1:
                        self.call("options", "GET", "/api/options")
                        if state is not None and not state["game_over"]:  # a game in play
                            self.call("state", "GET", f"/api/games/{gid}")
                with self.lock:
                    self.games += 1
                    replay = self.games % 10 == 0
                if replay and state is not None:
                    opened = self.call("replay", "POST", f"/api/games/{gid}/replay")
                    if opened:
                        self.call("frame", "GET", f"/api/replays/{opened['id']}/{opened['steps']}")
        except StopIteration:
            return


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values``, by the nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--clients", type=int, default=6, help=f"players at once (1..{MAX_CLIENTS})"
    )
    parser.add_argument(
        "--requests", type=int, default=3000, help=f"request budget (..{MAX_REQUESTS})"
    )
    parser.add_argument("--seconds", type=float, default=120, help=f"time budget (..{MAX_SECONDS})")
    parser.add_argument("--seed", type=int, default=1, help="seeds the players' choices")
    args = parser.parse_args(argv)
    if not 1 <= args.clients <= MAX_CLIENTS:
        parser.error(f"--clients {args.clients} must be in 1..{MAX_CLIENTS}")
    if not 1 <= args.requests <= MAX_REQUESTS:
        parser.error(f"--requests {args.requests} must be in 1..{MAX_REQUESTS}")
    if not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds {args.seconds} must be in (0, {MAX_SECONDS}]")
    with tempfile.TemporaryDirectory() as results:
        server = Server(Path(results))
        try:
            idle = server.memory()
            load = Load(server.url, args.requests, args.seconds, args.seed)
            t0 = time.monotonic()
            threads = [threading.Thread(target=load.player, args=(i,)) for i in range(args.clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.monotonic() - t0
            after = server.memory()
        finally:
            server.stop()
    total = sum(len(v) for v in load.times.values())
    print(
        f"{total} requests by {args.clients} clients in {wall:.1f} s wall, {load.games} games finished"
    )
    print(f"{'request':<10}{'count':>7}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}")
    for kind in ("options", "state", "create", "move", "advance", "replay", "frame"):
        times = load.times.get(kind)
        if times:
            print(
                f"{kind:<10}{len(times):>7}{1000 * statistics.median(times):>10.1f}"
                f"{1000 * percentile(times, 0.99):>10.1f}{1000 * max(times):>10.1f}"
            )
    every = [t for v in load.times.values() for t in v]
    print(
        f"{'all':<10}{len(every):>7}{1000 * statistics.median(every):>10.1f}"
        f"{1000 * percentile(every, 0.99):>10.1f}{1000 * max(every):>10.1f}"
    )
    print("refused:", dict(load.refused) or "none")
    print(
        f"server memory: {idle['rss_mib']:.0f} MiB idle, {after['rss_mib']:.0f} MiB after, "
        f"peak {after['peak_rss_mib']:.0f} MiB; server CPU {after['cpu_s'] - idle['cpu_s']:.1f} s"
        " during the load"
    )
    if load.lost:
        print(f"{load.lost} requests about a game in play answered 404: a game in play was dropped")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
