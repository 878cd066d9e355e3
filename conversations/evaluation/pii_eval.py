"""Measure PII redaction on the frozen sets in tests/evals/pii/: recall per type and the share of ordinary tokens masked.

Pure functions (rows and a redactor in, counts out) so a test can feed a broken redactor and watch
a floor fail. A value counts as caught when every one of its word tokens (titles such as "Mr." or
"Officer" aside) is gone from the output; a half-masked SSN is a leak.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

__all__ = [
    "PII_EVAL_DIR",
    "PRESIDIO_SETS",
    "PRESIDIO_TYPES",
    "Redactor",
    "check_frozen",
    "evaluate",
    "false_mask_counts",
    "load_rows",
    "memoized",
    "presidio_counts",
    "recall_counts",
    "redactors",
    "street_line",
]

PII_EVAL_DIR: Final = Path(__file__).resolve().parents[2] / "tests" / "evals" / "pii"
# The presidio-evaluator entity types the target covers, and how they are reported.
PRESIDIO_TYPES: Final = {"PERSON": "NAME", "STREET_ADDRESS": "ADDRESS", "PHONE_NUMBER": "PHONE"}
# The frozen presidio-evaluator test sets and their keys in `evaluate`: seed 21, seed 2027 (made before the
# street-line work of issue 21 finding 4) and seed 3033 (made and frozen before the sixth session's street work);
# none is looked at row by row. Tuning uses other seeds (presidio_dev*.jsonl).
PRESIDIO_SETS: Final = {
    "presidio": "presidio_sentences.jsonl",
    "presidio2": "presidio_sentences2.jsonl",
    "presidio3": "presidio_sentences3.jsonl",
}
Redactor = Callable[[str], str]

_TOKEN: Final = re.compile(r"\w+")
# A title or kinship word next to a name says nothing about who the person is: it may stay.
_TITLES: Final = frozenset(
    """mr mrs ms miss dr officer oficial pastor sra sr senora señora la el don doña dona licenciado
    agent agente""".split()
)


def load_rows(name: str, directory: Path = PII_EVAL_DIR) -> list[dict[str, Any]]:
    """One JSON object per non-blank line of `directory/name`.

    presidio-evaluator's templates write some line breaks as a literal backslash-n; each becomes a
    space and a newline (the same length, so the labelled spans still index the text).
    """
    with open(directory / name, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    for row in rows:
        row["text"] = row["text"].replace("\\n", " \n")
    return rows


def check_frozen(directory: Path = PII_EVAL_DIR) -> list[str]:
    """Names of the set files whose bytes no longer match SHA256SUMS (empty when all are intact)."""
    changed = []
    for line in (directory / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, name = line.split(None, 1)
        path = directory / name.strip()
        if not path.exists() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            changed.append(name.strip())
    return changed


def _value_tokens(value: str) -> Counter[str]:
    return Counter(t for t in _TOKEN.findall(value) if t.lower() not in _TITLES)


def street_line(value: str) -> str:
    """The street part of a labelled address: its first line or comma-separated part.

    Pathways keeps the city, state, country and ZIP (they route a person to local help), so an
    address counts as redacted when its street line is gone.
    """
    return re.split(r"[\n,]", value.strip(), maxsplit=1)[0]


def _caught(original: str, value: str, redacted: str) -> bool:
    """Every token of `value` is gone: the output holds fewer of each than the input held."""
    need = _value_tokens(value)
    have = Counter(_TOKEN.findall(original))
    left = Counter(_TOKEN.findall(redacted))
    return all(left[token] <= have[token] - count for token, count in need.items())


def recall_counts(
    rows: Iterable[Mapping[str, Any]],
    redactor: Redactor,
    types: Mapping[str, str] | None = None,
    *,
    skip: Callable[[Mapping[str, Any]], bool] | None = None,
    view: Mapping[str, Callable[[str], str]] | None = None,
) -> dict[str, Any]:
    """Caught/total per type (optionally renamed by `types`, others dropped), the masked ordinary tokens, and misses."""
    total: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    misses: list[dict[str, str]] = []
    tokens = lost = 0
    for row in rows:
        text = row["text"]
        out = redactor(text)
        values = []
        for item in row["pii"]:
            # The span is the truth: the generator lower-cases some sentences but not their values.
            value = text[item["start"] : item["end"]] if "start" in item else item["value"]
            values.append(value)
            kind = item["type"] if types is None else types.get(item["type"])
            if kind is None or (skip is not None and skip(item)):
                continue
            total[kind] += 1
            scored = view[kind](value) if view and kind in view else value
            if _caught(text, scored, out):
                caught[kind] += 1
            else:
                misses.append({"id": row["id"], "type": kind, "value": value, "out": out})
        n, gone = _masked(text, values, out)
        tokens += n
        lost += gone
    return {
        "caught": dict(sorted(caught.items())),
        "total": dict(sorted(total.items())),
        "other_tokens": tokens,
        "other_tokens_masked": lost,
        "misses": misses,
    }


def _masked(original: str, values: Sequence[str], redacted: str) -> tuple[int, int]:
    """Tokens of `original` outside `values`, and how many of them the redaction removed."""
    rest = original
    for value in sorted(values, key=len, reverse=True):
        rest = rest.replace(value, " ")
    expected = Counter(_TOKEN.findall(rest))
    remaining = Counter(_TOKEN.findall(redacted))
    return sum(expected.values()), sum((expected - remaining).values())


def false_mask_counts(rows: Iterable[Mapping[str, Any]], redactor: Redactor) -> dict[str, Any]:
    """Tokens of ordinary (PII-free) messages and how many the redactor masked, with the damaged messages."""
    tokens = lost = 0
    damaged: list[dict[str, str]] = []
    for row in rows:
        out = redactor(row["text"])
        n, gone = _masked(row["text"], (), out)
        tokens += n
        lost += gone
        if gone:
            damaged.append({"id": row["id"], "text": row["text"], "out": out})
    return {"tokens": tokens, "masked": lost, "damaged": damaged}


def _postcode_only(item: Mapping[str, Any]) -> bool:
    """A labelled address fragment that is only a postcode: Pathways keeps ZIPs (they route to local help)."""
    return item["type"] == "STREET_ADDRESS" and bool(re.fullmatch(r"\d{4,6}|\d{3} \d{2}", item["value"].strip()))


def _mask(text: str, spans: Sequence[tuple[int, int, str]]) -> str:
    out: list[str] = []
    last = 0
    for start, end, kind in sorted(spans):
        if start < last:
            continue
        out.append(text[last:start])
        out.append(f"[{kind}]")
        last = end
    out.append(text[last:])
    return "".join(out)


# Presidio entities that identify a person; LOCATION, DATE_TIME, NRP and the like would eat routing signal.
PRESIDIO_PII_ENTITIES: Final = [
    "PERSON",
    "PHONE_NUMBER",
    "EMAIL_ADDRESS",
    "US_SSN",
    "CREDIT_CARD",
    "US_DRIVER_LICENSE",
    "US_BANK_NUMBER",
    "US_PASSPORT",
    "US_ITIN",
    "IBAN_CODE",
    "IP_ADDRESS",
    "MEDICAL_LICENSE",
]


def redactors() -> dict[str, Redactor]:
    """The candidates compared: the patterns, the patterns with the name model, and Presidio alone."""
    from conversations.hooks import pii_ner  # noqa: PLC0415 - the name model loads only when a redactor asks for it
    from conversations.hooks.pii import redact  # noqa: PLC0415 - the name model loads only when a redactor asks for it

    return {
        "patterns": lambda text: redact(text, ner=False).text,
        "patterns+ner": lambda text: redact(text, ner=True).text,
        "presidio": lambda text: _mask(text, pii_ner.entity_spans(text, PRESIDIO_PII_ENTITIES)),
    }


def memoized(redactor: Redactor) -> Redactor:
    """The same redactor, computing each distinct text once (the sets are scored several ways)."""
    cache: dict[str, str] = {}

    def run(text: str) -> str:
        if text not in cache:
            cache[text] = redactor(text)
        return cache[text]

    return run


def evaluate(redactor: Redactor, directory: Path = PII_EVAL_DIR) -> dict[str, Any]:
    """Every figure on the three sets for one redactor: counts, so the caller can put intervals on them."""
    redactor = memoized(redactor)
    rows = load_rows("pii_set.jsonl", directory)
    result: dict[str, Any] = {}
    for split in ("dev", "test"):
        counts = recall_counts([r for r in rows if r["split"] == split], redactor)
        result[f"pii_set_{split}"] = counts
    result["pii_set_all"] = recall_counts(rows, redactor)
    result["non_pii"] = false_mask_counts(load_rows("non_pii.jsonl", directory), redactor)
    for key, name in PRESIDIO_SETS.items():
        sentences = load_rows(name, directory)
        result[key] = presidio_counts(sentences, redactor)
        result[f"{key}_labelled"] = presidio_counts(sentences, redactor, by_guide=False)
        result[f"{key}_strict"] = recall_counts(sentences, redactor, PRESIDIO_TYPES)
    return result


def presidio_counts(rows: Iterable[Mapping[str, Any]], redactor: Redactor, *, by_guide: bool = True) -> dict[str, Any]:
    """The main presidio-evaluator figure: names, phones, and addresses by their street line (postcodes alone skipped).

    By the labelling guide (the default) a street named without a house number is not PII, so the generator's
    "shows on Amelia Center Street" is not scored; `by_guide=False` scores every labelled street line.
    """
    skip = _outside_guide if by_guide else _postcode_only
    return recall_counts(rows, redactor, PRESIDIO_TYPES, skip=skip, view={"ADDRESS": street_line})


def _outside_guide(item: Mapping[str, Any]) -> bool:
    """A labelled address that LABELING.md does not call PII: a postcode alone, or a street line with no number."""
    if _postcode_only(item):
        return True
    return item["type"] == "STREET_ADDRESS" and not any(ch.isdigit() for ch in street_line(item["value"]))
