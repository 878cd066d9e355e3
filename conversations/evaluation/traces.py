"""Load and validate the pinned traces in tests/evals/traces/*.jsonl (one suite per file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from django.conf import settings
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from vocab import CRISIS_CATEGORIES, CRISIS_LABELS, NEED_CATEGORIES, REGIONS

HANDOFF_CATEGORIES = (*CRISIS_CATEGORIES, "legal_aid", "out_of_state", "human", "uncertain", "bound")
VERDICTS = ("pass", "soft_block", "hard_block")

Need = Literal[NEED_CATEGORIES]  # type: ignore[valid-type]


class TraceError(ValueError):
    """A trace file is malformed; the message names the file and line."""


class TurnExpect(BaseModel):
    """What a correct navigator does with one message (see tests/evals/traces/README.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    crisis: Literal[CRISIS_LABELS] = "none"  # type: ignore[valid-type]
    top_need: Need | None = None  # absent: not scored
    region: Literal[REGIONS] | None = None  # type: ignore[valid-type]  # scored only when the key is given
    must_cite: tuple[tuple[str, ...], ...] = ()  # each group: at least one of these slugs is cited
    must_not_cite: tuple[str, ...] = ()
    no_citations: bool = False
    handoff: Literal[HANDOFF_CATEGORIES] | None = None  # type: ignore[valid-type]
    audit: Literal[VERDICTS] | None = None  # type: ignore[valid-type]
    reply_language: Literal["en", "es"] = "en"
    pii: tuple[str, ...] = ()
    reply_must_not_contain: tuple[str, ...] = ()

    @field_validator("must_cite", mode="before")
    @classmethod
    def _groups(cls, value: object) -> object:
        if isinstance(value, list):
            return [[item] if isinstance(item, str) else item for item in value]
        return value

    @property
    def scores_region(self) -> bool:
        # null is a real label ("no place given"), so presence of the key decides, not the value.
        return "region" in self.model_fields_set


class TraceTurn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str = Field(min_length=1, max_length=2000)
    expect: TurnExpect


class Trace(BaseModel):
    """One conversation: its channel, the person's language, and the turns with their expectations."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=60)
    suite: str = ""
    channel: Literal["web", "sms"]
    language: Literal["en", "es"]
    ui_language: Literal["en", "es"] | None = None  # a language the web client chose explicitly
    tags: tuple[str, ...] = ()
    note: str = ""
    turns: tuple[TraceTurn, ...] = Field(min_length=1, max_length=6)


def default_directory() -> Path:
    return Path(settings.BASE_DIR) / "tests" / "evals" / "traces"


def suite_names(directory: Path | None = None) -> list[str]:
    directory = directory or default_directory()
    return sorted(path.stem for path in directory.glob("*.jsonl"))


def load_traces(directory: Path | None = None, suites: list[str] | None = None) -> list[Trace]:
    """Every trace of the chosen suites (all when None), validated strictly; ids are unique."""
    directory = directory or default_directory()
    available = suite_names(directory)
    wanted = suites or available
    unknown = sorted(set(wanted) - set(available))
    if unknown:
        raise TraceError(f"unknown suite(s) {', '.join(unknown)}; available: {', '.join(available)}")
    traces: list[Trace] = []
    seen: set[str] = set()
    for suite in wanted:
        path = directory / f"{suite}.jsonl"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                trace = Trace.model_validate({**json.loads(line), "suite": suite})
            except (json.JSONDecodeError, ValidationError) as exc:
                raise TraceError(f"{path.name}:{number}: {exc}") from None
            if trace.id in seen:
                raise TraceError(f"{path.name}:{number}: duplicate trace id {trace.id}")
            seen.add(trace.id)
            traces.append(trace)
    return traces
