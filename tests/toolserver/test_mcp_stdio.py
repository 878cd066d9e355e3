"""The MCP tools over stdio, driven by the SDK's own client against `manage.py mcp serve`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.toolserver import mcp_checks

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("served_data")]


def _client(server_env: dict[str, str], errlog: object, *, server: str = "pathways") -> Client:
    params = StdioServerParameters(
        command=sys.executable, args=["manage.py", "mcp", "serve", "--server", server], env=server_env, cwd=str(ROOT)
    )
    return Client(stdio_client(params, errlog=errlog), read_timeout_seconds=120)


async def test_the_sdk_client_lists_calls_and_gets_tool_errors_over_stdio(
    server_env: dict[str, str], tmp_path: Path
) -> None:
    log_path = tmp_path / "stdio-server.log"
    with log_path.open("w") as errlog:
        async with _client(server_env, errlog) as client:
            await mcp_checks.check_lists_every_tool_with_schemas(client)
            await mcp_checks.check_calls_every_tool(client)
            await mcp_checks.check_a_gated_search_says_do_not_assert(client)
            await mcp_checks.check_pii_is_redacted_before_search_and_echo(client)
            await mcp_checks.check_bad_arguments_are_tool_errors(client)
    log = log_path.read_text()
    # The server logged the searches, and only in redacted form.
    assert "mcp corpus_search" in log
    assert "[SSN]" in log
    assert "123-45-6789" not in log and "713-555-0199" not in log and "5550199" not in log
    assert "Illinois 62701" not in log


async def test_each_named_server_serves_only_its_own_tools(server_env: dict[str, str], tmp_path: Path) -> None:
    with (tmp_path / "log").open("w") as errlog:
        async with _client(server_env, errlog, server="tx-resources") as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
    assert names == {"resources_match", "resource_get"}
