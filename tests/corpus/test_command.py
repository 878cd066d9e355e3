"""`manage.py corpus` search/stats output shapes."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


def test_search_json_has_the_stable_shape(corpus, capsys):
    call_command("corpus", "search", "can i vote on parole", "--json", "--k", "3")
    out = json.loads(capsys.readouterr().out)
    assert {"query", "hits", "confidence", "gated"} <= set(out)
    assert len(out["hits"]) == 3
    assert {"slug", "citation", "score", "lexical_rank", "semantic_rank"} <= set(out["hits"][0])


def test_search_jsonl_answers_one_line_per_input_carrying_its_id(corpus, capsys, tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text(
        "\n".join(
            json.dumps(row)
            for row in [
                {"id": "a", "text": "can i vote on parole"},
                {"id": "b", "text": "puedo votar", "language": "es"},
                {"id": "c", "text": "   "},
            ]
        )
    )
    call_command("corpus", "search", "--jsonl", str(source))
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["id"] for line in lines] == ["a", "b", "c"]
    assert lines[0]["hits"] and lines[1]["language"] == "es"
    assert lines[2]["error"]["code"] == "empty_query"


def test_search_with_an_unknown_category_fails_clearly(corpus):
    with pytest.raises(CommandError, match="category"):
        call_command("corpus", "search", "vote", "--category", "astrology")


def test_stats_counts_entries(corpus, capsys):
    call_command("corpus", "stats", "--json")
    stats = json.loads(capsys.readouterr().out)
    assert stats["total"]["entries"] >= 80
    # Every verified entry is assertable except the repealed provision kept for traceability.
    assert stats["total"]["assertable"] == stats["total"]["verified"] - 1
    assert stats["total"]["unembedded"] == 0
