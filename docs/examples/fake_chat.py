"""A stand-in for an OpenAI-compatible chat endpoint, on this machine only, to try text agents.

It answers every ``POST /v1/chat/completions`` without a model: ``--mode legal`` copies the
first legal action from the prompt's menu, ``--mode nonsense`` names none (so every move falls
back). It listens on 127.0.0.1 only::

    python docs/examples/fake_chat.py --port 8765 --mode legal &
    continental evaluate --agents llm:http://127.0.0.1:8765/v1,greedy --llm-model any \\
        --players 2 --rounds 1 --games 2
"""

from __future__ import annotations

import argparse
import json
import re
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MENU = re.compile(r"^\d+\. (.+)$", re.M)  # "1. draw": the prompt's numbered legal actions


class Handler(BaseHTTPRequestHandler):
    """One chat completion per request."""

    mode = "legal"

    def do_POST(self) -> None:  # http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        legal = MENU.findall(prompt)
        content = legal[0] if self.mode == "legal" and legal else "I would rather not say."
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args: object) -> None:  # one line per request is too many
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--mode", choices=("legal", "nonsense"), default="legal")
    args = parser.parse_args()
    Handler.mode = args.mode
    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
