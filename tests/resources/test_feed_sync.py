"""Partner feeds done right, against a real local HTTP server: HSDS validation first, rows matched by id
then natural key (never position), additions and removals as change requests, redirects refused."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from resources import feeds
from resources.errors import FeedError
from resources.feeds import feed_fetch, feed_refresh, url_problem
from resources.hsds import service_json
from resources.models import ChangeRequest, FeedRefresh, Location, Phone, Service
from resources.selectors import match
from resources.services import change_request_approve

from .conftest import make_service

pytestmark = pytest.mark.django_db

# path -> (status, headers, body)
ROUTES: dict[str, tuple[int, dict[str, str], bytes]] = {}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, headers, body = ROUTES.get(self.path, (404, {}, b"{}"))
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for key, value in {"Content-Length": str(len(body)), **headers}.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    ROUTES.clear()


def _serve(server: str, org: Any, services: list[dict[str, Any]], path: str = "/feed.json") -> None:
    ROUTES[path] = (200, {}, json.dumps({"contents": services}).encode())
    org.feed_url = f"{server}{path}"
    org.save()


def _live() -> list[tuple[Any, ...]]:
    return sorted(Phone.objects.values_list("id", "number")) + sorted(
        Service.objects.values_list("id", "name", "alert", "status")
    )


def test_one_changed_one_new_and_one_removed_service_yield_exactly_three_change_requests(
    cast: dict[str, Any], server: str
) -> None:
    org = cast["org_a"]
    kept = cast["service_a"]
    removed = make_service(org, "a-food", categories=("food",), phone="+17135550001")
    newcomer = make_service(org, "a-clinic", categories=("health",), phone="+17135550002")
    new_json = service_json(newcomer, full=True)
    location = newcomer.service_at_locations.get().location
    newcomer.delete()
    location.delete()
    changed = service_json(kept, full=True)
    changed["alert"] = "Now open Saturdays"
    _serve(server, org, [changed, new_json])
    before = _live()

    refresh = feed_refresh(organization=org)

    assert refresh.status == "ok", refresh.error_message
    requests = {(r.target_type, r.action): r for r in ChangeRequest.objects.all()}
    assert sorted(requests) == [("service", "create"), ("service", "delete"), ("service", "update")]
    assert refresh.change_requests_created == 3
    assert requests[("service", "update")].changes == {"alert": {"old": "", "new": "Now open Saturdays"}}
    assert requests[("service", "delete")].target_id == removed.pk
    assert _live() == before  # nothing live until review
    # A second refresh files nothing new.
    assert feed_refresh(organization=org).change_requests_created == 0

    for request in ChangeRequest.objects.order_by("pk"):
        change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    assert Service.objects.get(pk=kept.pk).alert == "Now open Saturdays"
    assert Service.objects.get(pk=removed.pk).status == "defunct"
    created = Service.objects.get(pk=requests[("service", "create")].target_id)
    assert created.name == "A Clinic" and created.phones.get().number == "+17135550002"
    assert created.service_at_locations.get().location.region == "houston"
    assert [card.id for card in match(category="health", region="houston")] == [str(created.pk)]


def test_phones_are_matched_by_id_not_by_position(cast: dict[str, Any], server: str) -> None:
    service = cast["service_a"]
    second = Phone.objects.create(organization=cast["org_a"], service=service, number="+17135550009", rank=1)
    data = service_json(service, full=True)
    data["phones"].reverse()  # the feed lists them in another order
    data["phones"][1]["description"] = "Front desk"  # a change to the first of our phones
    _serve(server, cast["org_a"], [data])
    assert feed_refresh(organization=cast["org_a"]).status == "ok"
    request = ChangeRequest.objects.get()
    assert (request.target_id, request.changes) == (
        cast["phone_a"].pk,
        {"description": {"old": "", "new": "Front desk"}},
    )
    assert second.pk != request.target_id


def test_a_phone_with_a_foreign_id_is_matched_by_number_and_an_unknown_one_is_an_addition(
    cast: dict[str, Any], server: str
) -> None:
    service = cast["service_a"]
    data = service_json(service, full=True)
    data["phones"][0]["id"] = "0b6f3c5e-3f5d-4a0e-9a51-5a0a3c2d1e11"  # the partner's own id for the same number
    data["phones"].append({"id": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "number": "+17135550123", "type": "voice"})
    _serve(server, cast["org_a"], [data])
    assert feed_refresh(organization=cast["org_a"]).status == "ok"
    [request] = ChangeRequest.objects.all()
    assert (request.target_type, request.action, request.changes["number"]["new"]) == (
        "phone",
        "create",
        "+17135550123",
    )


def test_a_replaced_phone_is_a_removal_and_an_addition_never_an_edit_of_the_first_row(
    cast: dict[str, Any], server: str
) -> None:
    data = service_json(cast["service_a"], full=True)
    data["phones"] = [{"id": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "number": "+17135550123", "type": "voice"}]
    _serve(server, cast["org_a"], [data])
    assert feed_refresh(organization=cast["org_a"]).status == "ok"
    kinds = sorted((r.target_type, r.action, str(r.target_id)) for r in ChangeRequest.objects.all())
    assert kinds[0][:2] == ("phone", "create")
    assert kinds[1] == ("phone", "delete", str(cast["phone_a"].pk))


def test_a_new_location_in_the_feed_is_proposed_with_its_link(cast: dict[str, Any], server: str) -> None:
    data = service_json(cast["service_a"], full=True)
    data["service_at_locations"].append(
        {
            "id": "3b1a1c55-1111-4c1c-9e0b-111111111111",
            "location": {
                "id": "3b1a1c55-2222-4c1c-9e0b-222222222222",
                "location_type": "physical",
                "addresses": [
                    {
                        "id": "3b1a1c55-3333-4c1c-9e0b-333333333333",
                        "address_1": "200 Congress Ave",
                        "city": "Austin",
                        "state_province": "TX",
                        "postal_code": "78701",
                        "country": "US",
                        "address_type": "physical",
                    }
                ],
            },
        }
    )
    _serve(server, cast["org_a"], [data])
    assert feed_refresh(organization=cast["org_a"]).status == "ok"
    request = ChangeRequest.objects.get()
    assert (request.target_type, request.action, request.changes["region"]["new"]) == ("location", "create", "austin")
    change_request_approve(change_request_id=request.pk, reviewer=cast["supervisor"])
    assert Location.objects.get(pk=request.target_id).service_at_locations.get().service == cast["service_a"]


@pytest.mark.parametrize(
    ("document", "needle"),
    [
        ([{"id": "not-a-uuid", "name": "A Shelter", "status": "active"}], "contents/0/id"),
        ([{"id": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "name": "A Shelter", "status": "open"}], "contents/0/status"),
        ([{"id": "7c9e6679-7425-40de-944b-e07fc1f90ae7", "status": "active"}], "'name' is a required property"),
    ],
)
def test_a_feed_that_is_not_hsds_is_recorded_with_its_first_errors_and_changes_nothing(
    cast: dict[str, Any], server: str, document: list[dict[str, Any]], needle: str
) -> None:
    _serve(server, cast["org_a"], document)
    before = _live()
    refresh = feed_refresh(organization=cast["org_a"])
    assert (refresh.status, refresh.error_code) == ("failed", "not_hsds")
    assert refresh.errors and any(needle in error for error in refresh.errors), refresh.errors
    assert not ChangeRequest.objects.exists() and _live() == before


def test_a_50_mb_feed_is_refused_before_it_is_read(cast: dict[str, Any], server: str) -> None:
    ROUTES["/big.json"] = (200, {"Content-Length": str(50 * 1024 * 1024)}, b"[]")
    cast["org_a"].feed_url = f"{server}/big.json"
    cast["org_a"].save()
    refresh = feed_refresh(organization=cast["org_a"])
    assert (refresh.status, refresh.error_code) == ("failed", "too_large")
    assert not ChangeRequest.objects.exists()


def test_a_redirect_within_the_feeds_host_is_followed_and_one_elsewhere_is_refused(
    cast: dict[str, Any], server: str
) -> None:
    data = service_json(cast["service_a"], full=True)
    data["alert"] = "moved"
    ROUTES["/real.json"] = (200, {}, json.dumps([data]).encode())
    ROUTES["/old.json"] = (301, {"Location": "/real.json"}, b"")
    port = server.rsplit(":", 1)[1]
    ROUTES["/away.json"] = (302, {"Location": f"http://localhost:{port}/real.json"}, b"")
    org = cast["org_a"]
    org.feed_url = f"{server}/old.json"
    org.save()
    assert feed_refresh(organization=org).status == "ok"
    assert ChangeRequest.objects.count() == 1
    org.feed_url = f"{server}/away.json"
    org.save()
    refresh = feed_refresh(organization=org)
    assert (refresh.status, refresh.error_code) == ("failed", "redirect_refused")
    assert ChangeRequest.objects.count() == 1


def test_in_production_a_redirect_to_a_loopback_or_plain_http_address_is_refused(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #21 item 9: the real redirect check runs on every hop (the local test server itself
    stands in for a public https feed, so only its own URL is let through)."""
    ROUTES["/feed.json"] = (302, {"Location": "/internal.json"}, b"")
    ROUTES["/internal.json"] = (200, {}, b"[]")
    real = feeds.url_problem
    start = f"{server}/feed.json"
    monkeypatch.setattr(feeds, "url_problem", lambda url, *, strict: None if url == start else real(url, strict=strict))
    with pytest.raises(FeedError) as caught:
        feed_fetch(start, timeout=2, max_bytes=1024, strict=True)
    assert caught.value.code == "redirect_refused" and "https" in caught.value.message
    assert feed_fetch(start, timeout=2, max_bytes=1024, strict=False) == ([], 2)  # development follows it


@pytest.mark.parametrize(
    ("url", "refused"),
    [
        ("http://93.184.216.34/feed.json", True),  # not https
        ("https://127.0.0.1/feed.json", True),
        ("https://localhost/feed.json", True),
        ("https://10.1.2.3/feed.json", True),
        ("https://192.168.0.4/feed.json", True),
        ("https://169.254.169.254/latest/meta-data", True),  # link-local (cloud metadata)
        ("https://[::1]/feed.json", True),
        ("https://[fe80::1]/feed.json", True),
        ("ftp://93.184.216.34/feed.json", True),
        ("https://93.184.216.34/feed.json", False),
    ],
)
def test_the_production_url_check(url: str, refused: bool) -> None:
    assert (url_problem(url, strict=True) is not None) is refused


def test_in_production_a_plain_http_feed_url_is_recorded_and_nothing_fetched(
    cast: dict[str, Any], server: str, settings: Any
) -> None:
    settings.PRODUCTION = True
    _serve(server, cast["org_a"], [service_json(cast["service_a"], full=True)])
    refresh = feed_refresh(organization=cast["org_a"])
    assert (refresh.status, refresh.error_code) == ("failed", "refused_url")
    assert FeedRefresh.objects.count() == 1 and not ChangeRequest.objects.exists()
