"""A fake Twilio REST API: a real HTTP server on 127.0.0.1 that the real twilio client talks to.

It mimics `POST /2010-04-01/Accounts/{sid}/Messages.json` (form-encoded in, JSON out) and can be
scripted to answer 5xx, 429, 400 with a Twilio error code, or to answer slowly.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

MESSAGES_PATH = re.compile(r"^/2010-04-01/Accounts/(?P<sid>AC[0-9a-f]{32})/Messages\.json$")


@dataclass
class Scripted:
    status: int
    body: dict[str, Any] | None = None
    delay: float = 0.0


@dataclass
class FakeTwilio:
    account_sid: str
    auth_token: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    script: list[Scripted] = field(default_factory=list)
    server: ThreadingHTTPServer | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def sent(self) -> list[dict[str, Any]]:
        """Requests that the fake accepted (answered 201)."""
        return [r for r in self.requests if r["answered"] == 201]

    def fail_next(self, status: int, code: int | None = None, *, delay: float = 0.0) -> None:
        body = (
            {
                "code": code,
                "message": "fake error",
                "more_info": f"https://www.twilio.com/docs/errors/{code}",
                "status": status,
            }
            if code
            else {"message": "fake error", "status": status}
        )
        self.script.append(Scripted(status, body, delay))

    def slow_next(self, delay: float) -> None:
        self.script.append(Scripted(201, None, delay))

    def handle(self, path: str, headers: dict[str, str], raw: bytes) -> tuple[int, dict[str, Any]]:
        form = {key: values[0] for key, values in parse_qs(raw.decode(), keep_blank_values=True).items()}
        match = MESSAGES_PATH.match(path)
        expected_auth = "Basic " + base64.b64encode(f"{self.account_sid}:{self.auth_token}".encode()).decode()
        with self.lock:
            scripted = self.script.pop(0) if self.script else None
        record = {"path": path, "form": form, "auth_ok": headers.get("Authorization") == expected_auth, "answered": 0}
        with self.lock:
            self.requests.append(record)
        if scripted and scripted.delay:
            time.sleep(scripted.delay)
        if match is None or match["sid"] != self.account_sid:
            record["answered"] = 404
            return 404, {"code": 20404, "message": "not found", "status": 404}
        if not record["auth_ok"]:
            record["answered"] = 401
            return 401, {"code": 20003, "message": "Authenticate", "status": 401}
        if scripted and scripted.status != 201:
            record["answered"] = scripted.status
            return scripted.status, scripted.body or {}
        sid = "SM" + uuid.uuid4().hex
        record["answered"] = 201
        record["sid"] = sid
        return 201, {
            "sid": sid,
            "account_sid": self.account_sid,
            "to": form.get("To"),
            "from": form.get("From"),
            "body": form.get("Body"),
            "status": "queued",
            "num_segments": "1",
            "direction": "outbound-api",
            "api_version": "2010-04-01",
            "price": None,
            "error_code": None,
            "error_message": None,
            "uri": f"/2010-04-01/Accounts/{self.account_sid}/Messages/{sid}.json",
            "date_created": "Mon, 05 Jan 2026 17:00:00 +0000",
            "date_updated": "Mon, 05 Jan 2026 17:00:00 +0000",
            "date_sent": None,
            "messaging_service_sid": None,
            "num_media": "0",
            "price_unit": "USD",
            "subresource_uris": {},
        }

    def start(self) -> FakeTwilio:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                status, body = fake.handle(self.path, dict(self.headers), self.rfile.read(length))
                payload = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out first

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, name="fake-twilio", daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
