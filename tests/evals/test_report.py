"""The HTML report is self-contained, escapes what it shows, and the JSON report carries the floors."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conversations.evaluation.metrics import judge
from conversations.evaluation.report import build_report, render_html, write_html, write_json
from tests.evals.test_metrics import _obs


def _report() -> dict:
    results = [judge(_obs()), judge(_obs(redacted_text="<script>alert(1)</script> [SSN]", top_need="food"))]
    return build_report(results, mode="demo", suites=["core"], seconds=1.0)


def test_it_renders_a_self_contained_page_with_inline_svg_charts() -> None:
    html = render_html(_report())
    assert html.startswith("<!doctype html>")
    assert "<svg" in html and "Wilson 95% intervals" in html
    assert not re.search(r"<script|<link|<img|src=|@import", html), "no scripts or external files"
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_it_writes_both_reports_with_floors_and_cases(tmp_path: Path) -> None:
    report = _report()
    write_json(report, tmp_path / "out" / "eval.json")
    write_html(report, tmp_path / "out" / "eval.html")
    data = json.loads((tmp_path / "out" / "eval.json").read_text())
    assert [check["metric"] for check in data["floors"]][:2] == ["crisis_recall", "pii_leaks"]
    assert data["overall"]["rates"]["top_need_accuracy"] == {"k": 1, "n": 2, "rate": 0.5, "ci95": [0.0945, 0.9055]}
    assert data["strata"]["language"]["en"]["turns"] == 2
    assert len(data["cases"]) == 2 and data["cases"][1]["passed"] is False
    assert (tmp_path / "out" / "eval.html").read_text().count("<svg") >= 2
