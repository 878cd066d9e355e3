"""`manage.py evaluate`: suites, modes and the two report files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

TRACE = {
    "id": "cmd-001",
    "channel": "sms",
    "language": "en",
    "turns": [
        {
            "text": "can i vote if im on parole in houston",
            "expect": {"top_need": "voting", "region": "houston", "audit": "pass"},
        }
    ],
}


def test_it_refuses_an_unknown_suite_and_the_llm_mode_without_a_key(settings: pytest.FixtureRequest) -> None:
    with pytest.raises(CommandError, match="unknown suite"):
        call_command("evaluate", "--suite", "nope")
    settings.ANTHROPIC_API_KEY = ""
    with pytest.raises(CommandError, match="needs ANTHROPIC_API_KEY"):
        call_command("evaluate", "--mode", "llm")


@pytest.mark.django_db
def test_it_runs_a_suite_and_writes_both_reports_leaving_no_turns_behind(
    tmp_path: Path, settings: pytest.FixtureRequest
) -> None:
    from conversations.models import Turn

    settings.ANTHROPIC_API_KEY = "sk-ant-not-used-in-demo-mode"
    (tmp_path / "mini.jsonl").write_text(json.dumps(TRACE) + "\n")
    out_json, out_html = tmp_path / "r.json", tmp_path / "r.html"
    call_command(
        "evaluate",
        "--traces",
        str(tmp_path),
        "--mode",
        "demo",
        "--json",
        str(out_json),
        "--html",
        str(out_html),
        stdout=None,
    )
    report = json.loads(out_json.read_text())
    assert report["mode"] == "demo" and report["suites"] == ["mini"]
    assert report["cases"][0]["case"] == "cmd-001#1"
    assert report["overall"]["rates"]["top_need_accuracy"]["n"] == 1
    assert "<svg" in out_html.read_text()
    assert not Turn.objects.exists()


@pytest.mark.django_db
def test_evaluate_llm_runs_in_ci_on_the_offline_stand_in(
    tmp_path: Path, settings: pytest.FixtureRequest, capsys: pytest.CaptureFixture
) -> None:
    from conversations.models import Turn

    settings.ANTHROPIC_API_KEY = ""
    (tmp_path / "mini.jsonl").write_text(json.dumps(TRACE) + "\n")
    out_json, out_html = tmp_path / "r.json", tmp_path / "r.html"
    call_command(
        "evaluate",
        "--llm",
        "--fake-transport",
        "--traces",
        str(tmp_path),
        "--json",
        str(out_json),
        "--html",
        str(out_html),
    )
    report = json.loads(out_json.read_text())
    assert report["mode"] == "llm-standin"
    assert report["overall"]["llm"]["calls_per_turn"] >= 2  # the draft and the auditor went through the SDK
    assert "grounding_findings" in report["overall"]["counts"]
    assert all(
        "grounding_findings" in summary["counts"] for groups in report["strata"].values() for summary in groups.values()
    )
    assert "grounding findings" in capsys.readouterr().out
    assert not Turn.objects.exists()
