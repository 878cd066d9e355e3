"""The MCP tools over Streamable HTTP at /mcp/ of the real ASGI app, behind a staff API token."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import httpx2
import pytest
from django.contrib.auth import get_user_model
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.toolserver import mcp_checks
from toolserver.models import StaffApiToken
from toolserver.services import staff_token_create, staff_token_revoke

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def staff_token(django_db_setup: None, django_db_blocker: Any) -> Iterator[str]:
    """A committed token of an active staff account (the server subprocess must see it)."""
    with django_db_blocker.unblock():
        user = get_user_model().objects.create_user(username="mcp-staff", password="x" * 20, is_staff=True)
        _row, token = staff_token_create(username="mcp-staff", name="tests")
    yield token
    with django_db_blocker.unblock():
        StaffApiToken.objects.filter(user=user).delete()
        user.delete()


def _client(url: str, token: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
    return Client(streamable_http_client(f"{url}/mcp/", http_client=http), read_timeout_seconds=120)


async def test_the_sdk_client_lists_calls_and_gets_tool_errors_over_http(
    live_server_url: str, staff_token: str
) -> None:
    async with _client(live_server_url, staff_token) as client:
        await mcp_checks.check_lists_every_tool_with_schemas(client)
        await mcp_checks.check_calls_every_tool(client)
        await mcp_checks.check_a_gated_search_says_do_not_assert(client)
        await mcp_checks.check_pii_is_redacted_before_search_and_echo(client)
        await mcp_checks.check_bad_arguments_are_tool_errors(client)


def test_mcp_over_http_refuses_a_missing_wrong_or_revoked_token(
    live_server_url: str, staff_token: str, django_db_blocker: Any
) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    assert httpx.post(f"{live_server_url}/mcp/", json=body, headers=headers).status_code == 401
    wrong = httpx.post(
        f"{live_server_url}/mcp/", json=body, headers={**headers, "Authorization": "Bearer pwmcp_not-a-token"}
    )
    assert wrong.status_code == 401
    with django_db_blocker.unblock():
        _row, other = staff_token_create(username="mcp-staff", name="to revoke")
        staff_token_revoke(token_id=_row.pk)
    revoked = httpx.post(f"{live_server_url}/mcp/", json=body, headers={**headers, "Authorization": f"Bearer {other}"})
    assert revoked.status_code == 401
    # Django still answers everything else.
    assert httpx.get(f"{live_server_url}/healthz").status_code == 200


def test_tokens_are_only_issued_to_active_staff(db: Any) -> None:
    from toolserver.errors import TokenError

    get_user_model().objects.create_user(username="not-staff", password="x" * 20)
    with pytest.raises(TokenError):
        staff_token_create(username="not-staff", name="x")
    with pytest.raises(TokenError):
        staff_token_create(username="nobody", name="x")
