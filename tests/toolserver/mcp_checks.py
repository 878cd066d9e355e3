"""What every transport must show: the four tools with schemas, each callable, bad arguments → tool errors."""

from __future__ import annotations

from typing import Any

TOOLS = {"corpus_search", "corpus_entry", "resources_match", "resource_get"}
PII_QUERY = "my SSN is 123-45-6789, call me at 713-555-0199: how do I get a state ID after prison?"


async def check_lists_every_tool_with_schemas(client: Any) -> None:
    listed = (await client.list_tools()).tools
    assert {tool.name for tool in listed} == TOOLS
    for tool in listed:
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
        assert tool.annotations.read_only_hint is True
        assert tool.description
    search = next(tool for tool in listed if tool.name == "corpus_search")
    assert search.input_schema["properties"]["query"]["maxLength"] == 500
    assert search.input_schema["required"] == ["query"]


async def check_calls_every_tool(client: Any) -> dict[str, Any]:
    found = await client.call_tool(
        "corpus_search",
        {"query": "How do I get a Texas state ID card after release?", "language": "en", "category": "id_documents"},
    )
    assert not found.is_error, found.content
    search = found.structured_content
    assert search["hits"], search
    hit = search["hits"][0]
    assert hit["citation"] and hit["url"].startswith("http") and "excerpt" in hit and "caveat" in hit
    assert hit["decision"] in ("may cite", "do not assert")
    if search["gated"]:
        assert search["decision"] == "do not assert — hand off"
        assert all(h["decision"] == "do not assert" for h in search["hits"])

    entry = await client.call_tool("corpus_entry", {"slug": "tx-gov-508-181", "language": "es"})
    assert not entry.is_error, entry.content
    assert entry.structured_content["citation"] == "Tex. Gov't Code § 508.181"
    assert "condado" in entry.structured_content["summary"]
    assert entry.structured_content["decision"] == "may cite"

    unverified = await client.call_tool("corpus_entry", {"slug": "tx-gov-508-221"})
    assert unverified.structured_content["decision"] == "do not assert"

    matched = await client.call_tool(
        "resources_match", {"need": "housing", "region": "houston", "place": "77002", "language": "es"}
    )
    assert not matched.is_error, matched.content
    cards = matched.structured_content["resources"]
    assert cards and matched.structured_content["place"]
    distances = [card["distance_km"] for card in cards if card["distance_km"] is not None]
    assert distances == sorted(distances)

    got = await client.call_tool("resource_get", {"id": cards[0]["id"]})
    assert not got.is_error, got.content
    assert got.structured_content["name"] == cards[0]["name"]
    by_slug = await client.call_tool("resource_get", {"id": cards[0]["slug"]})
    assert by_slug.structured_content["id"] == cards[0]["id"]
    return search


async def check_a_gated_search_says_do_not_assert(client: Any) -> None:
    result = (
        await client.call_tool(
            "corpus_search", {"query": "what is the capital of Mongolia and its population", "language": "en"}
        )
    ).structured_content
    assert result["gated"] is True
    assert result["decision"] == "do not assert — hand off"
    assert all(hit["decision"] == "do not assert" for hit in result["hits"])


async def check_pii_is_redacted_before_search_and_echo(client: Any) -> None:
    result = (await client.call_tool("corpus_search", {"query": PII_QUERY})).structured_content
    assert "123-45-6789" not in result["query"] and "713-555-0199" not in result["query"]
    assert "[SSN]" in result["query"]


def _error_text(result: Any) -> str:
    assert result.is_error
    return " ".join(part.text for part in result.content)


async def check_bad_arguments_are_tool_errors(client: Any) -> None:
    long = await client.call_tool("corpus_search", {"query": "x" * 10_000})
    text = _error_text(long)
    assert "query" in text and "500" in text and "xxxxxxxxxx" not in text
    assert "slug" in _error_text(await client.call_tool("corpus_entry", {"slug": "no-such-entry"}))
    assert "region" in _error_text(await client.call_tool("resources_match", {"need": "housing", "region": "narnia"}))
    assert "need" in _error_text(await client.call_tool("resources_match", {"need": "unicorns", "region": "houston"}))
    place = _error_text(
        await client.call_tool(
            "resources_match", {"need": "housing", "region": "houston", "place": "Springfield, Illinois 62701"}
        )
    )
    assert "place" in place and "Illinois" not in place
    assert "category" in _error_text(await client.call_tool("corpus_search", {"query": "ID", "category": "astrology"}))
    assert "language" in _error_text(await client.call_tool("corpus_search", {"query": "ID", "language": "fr"}))
    assert "query" in _error_text(await client.call_tool("corpus_search", {}))
    assert "query" in _error_text(await client.call_tool("corpus_search", {"query": "   "}))
    assert "id" in _error_text(await client.call_tool("resource_get", {"id": "00000000-0000-0000-0000-000000000000"}))
    # The server is still serving after all of that.
    assert (await client.call_tool("corpus_entry", {"slug": "tx-gov-508-181"})).is_error is False
