"""The read-only MCP tools over the corpus and the directory — the only importer of the `mcp` SDK
besides `toolserver.http`, which serves these same servers over Streamable HTTP.

Two servers, as the design names them: `pathways-corpus` (`corpus_search`, `corpus_entry`) and
`tx-resources` (`resources_match`, `resource_get`); `pathways` carries all four tools (what
`manage.py mcp serve` and `/mcp/` serve by default). Every tool is read-only and declares its input
and output schema. Free-text arguments are redacted (conversations.hooks.redact) before they are
searched, logged or echoed; arguments that cannot be used are a tool error naming the field, never
a crash and never an echo of the caller's text.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Final, Literal

from django.db import close_old_connections
from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from conversations.hooks import redact
from corpus.errors import QueryError
from corpus.retrieval import MAX_QUERY_CHARS
from corpus.selectors import corpus_entry_get, corpus_search, corpus_source_excerpts
from corpus.types import CATEGORIES, HANDOFF_INSTRUCTION
from resources.errors import ResourceError
from resources.selectors import match, resolve_place, service_card_get
from resources.taxonomy import NEED_CATEGORIES, REGIONS

logger = logging.getLogger("toolserver")

SERVER_NAMES: Final = ("pathways", "pathways-corpus", "tx-resources")
MAX_PLACE_CHARS: Final = 120
MAX_KEY_CHARS: Final = 100
DO_NOT_ASSERT: Final = "do not assert"
READ_ONLY: Final = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

Language = Literal["en", "es"]


# --- output schemas -----------------------------------------------------------------------------
class CorpusHit(BaseModel):
    slug: str
    citation: str
    title: str
    url: str
    excerpt: str = Field(description="short verbatim quote from the source")
    summary: str = Field(description="plain-language summary in the language asked for")
    caveat: str
    assertable: bool = Field(description="verified and reviewed: may ever be cited")
    decision: Literal["may cite", "do not assert"] = Field(description="the gate's decision for this hit")
    score: float


class CorpusSearchOut(BaseModel):
    query: str = Field(description="the query as searched: PII redacted")
    language: Language
    category: str | None
    confidence: float
    gated: bool
    decision: str = Field(description="'may cite' or 'do not assert — hand off' for the whole result")
    hits: list[CorpusHit]
    warnings: list[str]


class CorpusEntryOut(BaseModel):
    slug: str
    citation: str
    title: str
    summary: str
    url: str
    excerpt: str
    caveat: str
    category: str
    jurisdiction: str
    assertable: bool
    decision: Literal["may cite", "do not assert"]


class ResourceOut(BaseModel):
    id: str
    slug: str
    name: str
    organization: str
    service: str
    phone: str
    phone_display: str
    address: str
    city: str
    region: str
    lat: float | None
    lon: float | None
    hours: str
    languages: list[str]
    url: str
    status: str
    alert: str
    last_verified_at: str | None
    distance_km: float | None
    open_now: bool | None
    is_statewide_line: bool
    categories: list[str]


class ResourcesMatchOut(BaseModel):
    need: str
    region: str
    place: str | None = Field(description="the resolved Texas place (city or ZIP), never the caller's text")
    resources: list[ResourceOut]


@contextmanager
def _db() -> Iterator[None]:
    """Tools run in the SDK's worker threads: hand the connection back (to the pool) after each call."""
    close_old_connections()
    try:
        yield
    finally:
        close_old_connections()


# --- argument checks (field-named errors, no echo of free text) ----------------------------------
def _text(value: str, *, field: str, limit: int) -> str:
    if not value.strip():
        raise ToolError(f"{field}: must not be empty")
    if len(value) > limit:
        raise ToolError(f"{field}: at most {limit} characters (got {len(value)})")
    return value


def _one_of(value: str | None, *, field: str, allowed: tuple[str, ...]) -> None:
    if value is not None and value not in allowed:
        # The allowed codes are ours; the rejected value is shown only when it is short and plain.
        shown = f" {value!r}" if len(value) <= 40 and value.replace("_", "").isalnum() else ""
        raise ToolError(f"{field}: unknown value{shown}; use one of: {', '.join(allowed)}")


# --- tools --------------------------------------------------------------------------------------
def corpus_search_tool(
    query: Annotated[
        str, Field(description="the question, in English or Spanish", json_schema_extra={"maxLength": MAX_QUERY_CHARS})
    ],
    language: Annotated[Language, Field(description="language of the summaries returned")] = "en",
    category: Annotated[
        str | None, Field(description="need category filter", json_schema_extra={"enum": [*CATEGORIES, None]})
    ] = None,
) -> CorpusSearchOut:
    """Search the cited Texas legal corpus. Hits carry citation, source URL, a verbatim excerpt,
    the caveat and the confidence gate's decision: a gated result says "do not assert — hand off"."""
    _text(query, field="query", limit=MAX_QUERY_CHARS)
    _one_of(category, field="category", allowed=CATEGORIES)
    safe = redact(query).text
    with _db():
        try:
            result = corpus_search(query=safe, language=language, category=category, k=5)
        except QueryError as exc:
            raise ToolError(f"query: {exc.message}") from None
        excerpts = corpus_source_excerpts(slugs=[hit.slug for hit in result.hits])
    cite = {hit.slug for hit in result.assertable_hits}
    logger.info(
        "mcp corpus_search language=%s category=%s gated=%s hits=%d query=%r",
        language,
        category,
        result.gated,
        len(result.hits),
        safe,
    )
    return CorpusSearchOut(
        query=safe,
        language=language,
        category=category,
        confidence=round(result.confidence, 4),
        gated=result.gated,
        decision=HANDOFF_INSTRUCTION if result.gated else "may cite",
        hits=[
            CorpusHit(
                slug=hit.slug,
                citation=hit.citation,
                title=hit.title,
                url=hit.url,
                excerpt=excerpts.get(hit.slug, ""),
                summary=hit.summary,
                caveat=hit.caveat,
                assertable=hit.assertable,
                decision="may cite" if hit.slug in cite else DO_NOT_ASSERT,
                score=round(hit.score, 6),
            )
            for hit in result.hits
        ],
        warnings=list(result.warnings),
    )


def corpus_entry_tool(
    slug: Annotated[
        str, Field(description="entry slug, e.g. tx-gov-508-181", json_schema_extra={"maxLength": MAX_KEY_CHARS})
    ],
    language: Annotated[Language, Field(description="language of the summary")] = "en",
) -> CorpusEntryOut:
    """One corpus entry by slug, with its citation, source, excerpt, caveat and whether it may be cited."""
    _text(slug, field="slug", limit=MAX_KEY_CHARS)
    with _db():
        hit = corpus_entry_get(slug=slug, language=language)
        excerpt = corpus_source_excerpts(slugs=[hit.slug]).get(hit.slug, "") if hit else ""
    if hit is None:
        raise ToolError("slug: no corpus entry has this slug")
    logger.info("mcp corpus_entry slug=%s", hit.slug)
    return CorpusEntryOut(
        slug=hit.slug,
        citation=hit.citation,
        title=hit.title,
        summary=hit.summary,
        url=hit.url,
        excerpt=excerpt,
        caveat=hit.caveat,
        category=hit.category,
        jurisdiction=hit.jurisdiction,
        assertable=hit.assertable,
        decision="may cite" if hit.assertable else DO_NOT_ASSERT,
    )


def resources_match_tool(
    need: Annotated[str, Field(description="need category", json_schema_extra={"enum": list(NEED_CATEGORIES)})],
    region: Annotated[str, Field(description="Texas region", json_schema_extra={"enum": list(REGIONS)})],
    place: Annotated[
        str | None,
        Field(
            description="a Texas city or ZIP, to sort nearest first", json_schema_extra={"maxLength": MAX_PLACE_CHARS}
        ),
    ] = None,
    language: Annotated[Language, Field(description="preferred service language")] = "en",
) -> ResourcesMatchOut:
    """Directory services for a need in a Texas region (statewide lines fill a sparse region), nearest
    first when a place is given. Deterministic: no model decides what is offered."""
    _one_of(need, field="need", allowed=NEED_CATEGORIES)
    _one_of(region, field="region", allowed=REGIONS)
    near = None
    resolved = None
    if place is not None:
        _text(place, field="place", limit=MAX_PLACE_CHARS)
        resolved = resolve_place(redact(place).text)
        if resolved is None:
            raise ToolError("place: not a Texas city or ZIP code this directory knows")
        near = (resolved.lat, resolved.lon)
    with _db():
        try:
            cards = match(category=need, region=region, near=near, language=language, limit=5)
        except ResourceError as exc:
            raise ToolError(exc.message) from None
    logger.info(
        "mcp resources_match need=%s region=%s place=%s results=%d",
        need,
        region,
        resolved.name if resolved else None,
        len(cards),
    )
    return ResourcesMatchOut(
        need=need,
        region=region,
        place=resolved.name if resolved else None,
        resources=[ResourceOut(**card.as_dict()) for card in cards],
    )


def resource_get_tool(
    id: Annotated[str, Field(description="service id (UUID) or slug", json_schema_extra={"maxLength": MAX_KEY_CHARS})],
) -> ResourceOut:
    """One directory service by id or slug, as a resource card."""
    _text(id, field="id", limit=MAX_KEY_CHARS)
    with _db():
        card = service_card_get(key=id)
    if card is None:
        raise ToolError("id: no directory service has this id")
    logger.info("mcp resource_get id=%s", card.id)
    return ResourceOut(**card.as_dict())


_CORPUS_TOOLS: Final = (("corpus_search", corpus_search_tool), ("corpus_entry", corpus_entry_tool))
_RESOURCE_TOOLS: Final = (("resources_match", resources_match_tool), ("resource_get", resource_get_tool))


def build_server(name: str = "pathways") -> MCPServer:
    """A new MCP server with the read-only tools of `name` (pathways = all of them)."""
    if name not in SERVER_NAMES:
        raise ValueError(f"unknown MCP server {name!r}; use one of {', '.join(SERVER_NAMES)}")
    tools = {
        "pathways": _CORPUS_TOOLS + _RESOURCE_TOOLS,
        "pathways-corpus": _CORPUS_TOOLS,
        "tx-resources": _RESOURCE_TOOLS,
    }[name]
    server = MCPServer(
        name,
        instructions=(
            "Read-only Texas reentry knowledge. Cite only hits whose decision is 'may cite'; "
            "a result whose decision is 'do not assert — hand off' must not be stated as a rule."
        ),
    )
    for tool_name, fn in tools:
        server.add_tool(fn, name=tool_name, annotations=READ_ONLY, structured_output=True)
    return server
