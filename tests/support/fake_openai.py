"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for the judge tests.

It records every request body and answers from a responder function the test supplies: the
responder gets the request JSON and returns the assistant's content (a string), a
``(content, logprobs)`` pair for the fact-checking style, or an HTTP status (an int) to fail
the request with. Stdlib only, one thread.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = str | tuple[str, list[tuple[str, float]]] | int
"""The assistant's content; with logprobs; or an HTTP error status to answer with."""


class FakeOpenAI:
    def __init__(self, responder: Callable[[dict[str, Any]], Reply]) -> None:
        self.responder = responder
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append(body)
                reply = server.responder(body)
                if isinstance(reply, int):
                    error = json.dumps({"error": {"message": "down", "type": "server_error"}})
                    self.send_response(reply)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(error)))
                    self.end_headers()
                    self.wfile.write(error.encode())
                    return
                content, top = (reply, None) if isinstance(reply, str) else reply
                logprobs = None
                if top is not None:
                    logprobs = {
                        "content": [
                            {
                                "token": top[0][0],
                                "logprob": top[0][1],
                                "bytes": None,
                                "top_logprobs": [
                                    {"token": t, "logprob": lp, "bytes": None} for t, lp in top
                                ],
                            }
                        ]
                    }
                data = json.dumps(
                    {
                        "id": "chatcmpl-test",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", ""),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop",
                                "logprobs": logprobs,
                            }
                        ],
                        "usage": {
                            "prompt_tokens": 100,
                            "completion_tokens": 20,
                            "total_tokens": 120,
                        },
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()

    def calls(self, kind: str) -> list[dict[str, Any]]:
        """The recorded requests of one kind: claims, verdicts, factcheck or correctness."""
        return [r for r in self.requests if request_kind(r) == kind]


def request_kind(body: dict[str, Any]) -> str:
    system = body["messages"][0]["content"]
    if system.startswith("You split an answer"):
        return "claims"
    if system.startswith("You check claims"):
        return "verdicts"
    if system.startswith("You compare an answer"):
        return "correctness"
    return "factcheck"


def user_text(body: dict[str, Any]) -> str:
    return str(body["messages"][1]["content"])
