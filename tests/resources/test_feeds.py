"""Feed refresh against a real local HTTP server: differences become pending ChangeRequests only."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.core.management import call_command

from resources.feeds import feed_refresh
from resources.hsds import service_json
from resources.models import ChangeRequest, FeedRefresh, Phone, Service
from resources.services import change_request_approve
from resources.tasks import refresh_feeds

ROUTES: dict[str, tuple[int, bytes, float]] = {}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, body, delay = ROUTES.get(self.path, (404, b"{}", 0.0))
        if delay:
            time.sleep(delay)
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def feed_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    ROUTES.clear()


def _feed_for(service: Service, **phone_changes: Any) -> bytes:
    data = service_json(service, full=True)
    data["phones"][0].update(phone_changes)
    return json.dumps({"contents": [data]}).encode()


def _snapshot() -> list[tuple[Any, ...]]:
    return sorted(Phone.objects.values_list("id", "number")) + sorted(
        Service.objects.values_list("id", "name", "alert")
    )


@pytest.mark.django_db
def test_a_changed_phone_becomes_one_pending_change_request(cast: dict[str, Any], feed_server: str) -> None:
    service = cast["service_a"]
    ROUTES["/feed.json"] = (200, _feed_for(service, number="+1 (713) 222-4444"), 0.0)
    org = cast["org_a"]
    org.feed_url = f"{feed_server}/feed.json"
    org.save()
    before = _snapshot()
    refresh = feed_refresh(organization=org)
    assert refresh.status == "ok", refresh.error_message
    request = ChangeRequest.objects.get()
    assert (request.status, request.source, request.target_type, request.feed_refresh) == (
        "pending",
        "feed",
        "phone",
        refresh,
    )
    assert request.changes == {"number": {"old": "+17132223333", "new": "+17132224444"}}
    assert _snapshot() == before  # nothing live changed
    # Refreshing again does not file the same difference twice.
    assert feed_refresh(organization=org).change_requests_created == 0
    assert ChangeRequest.objects.count() == 1
    change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    assert Phone.objects.get(pk=cast["phone_a"].pk).number == "+17132224444"


@pytest.mark.django_db
def test_the_task_and_the_command_refresh_every_feed(cast: dict[str, Any], feed_server: str) -> None:
    ROUTES["/a.json"] = (200, _feed_for(cast["service_a"], number="+17132224444"), 0.0)
    ROUTES["/b.json"] = (500, b"oops", 0.0)
    cast["org_a"].feed_url = f"{feed_server}/a.json"
    cast["org_a"].save()
    cast["org_b"].feed_url = f"{feed_server}/b.json"
    cast["org_b"].save()
    assert refresh_feeds.delay().get() == {"ok": 1, "failed": 1, "change_requests": 1}
    call_command("resources", "refresh", "--org", "org-b")
    assert FeedRefresh.objects.filter(organization=cast["org_b"], status="failed").count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("route", "code"),
    [
        ((200, b'{"contents": [ {"id": ', 0.0), "invalid_json"),
        ((200, b"", 1.5), "timeout"),
        ((200, b'{"contents": []}' + b" " * 5000, 0.0), "too_large"),
        ((500, b'{"error": "down"}', 0.0), "http_error"),
        ((200, b'{"something": "else"}', 0.0), "invalid"),
        (
            (
                200,
                b'{"contents": [{"id": "x", "name": "A Shelter", "phones": [{"id": "y", "number": "not a phone"}]}]}',
                0.0,
            ),
            "not_hsds",  # no status, ids not UUIDs: refused by the HSDS schema before any comparison
        ),
    ],
)
def test_a_broken_feed_is_recorded_and_changes_nothing(
    cast: dict[str, Any], feed_server: str, route: tuple[int, bytes, float], code: str
) -> None:
    ROUTES["/feed.json"] = route
    org = cast["org_a"]
    org.feed_url = f"{feed_server}/feed.json"
    org.save()
    before = _snapshot()
    refresh = feed_refresh(organization=org, timeout=0.5, max_bytes=4096)
    assert refresh.status == "failed"
    assert refresh.error_code == code, refresh.error_message
    assert refresh.finished_at is not None
    assert not ChangeRequest.objects.exists()
    assert _snapshot() == before
