"""The evaluation report: one JSON document and a self-contained HTML page (inline SVG, no scripts).

The HTML is served by the caseload dashboard under a sandbox CSP, so it uses no JavaScript and
no external files. It shows redacted text only and never a PII value (failures name items by index).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from conversations.evaluation.floors import check_floors
from conversations.evaluation.metrics import STRATA, CaseResult, stratify, summarize

HEADLINE = (
    "crisis_recall",
    "crisis_precision",
    "top_need_accuracy",
    "region_accuracy",
    "citation_precision",
    "citation_recall",
    "handoff_accuracy",
    "audit_agreement",
    "reply_language_accuracy",
    "case_pass_rate",
)
STRATUM_COLUMNS = (
    "top_need_accuracy",
    "crisis_recall",
    "citation_recall",
    "handoff_accuracy",
    "reply_language_accuracy",
    "case_pass_rate",
)


def build_report(
    results: list[CaseResult], *, mode: str, suites: list[str], seconds: float | None = None
) -> dict[str, Any]:
    """Overall and per-stratum metrics, the floor checks and every case's verdict, as plain JSON data."""
    overall = summarize(results)
    strata = stratify(results)
    floors = check_floors(overall, strata, results)
    return {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "mode": mode,
        "suites": suites,
        "seconds": round(seconds, 1) if seconds is not None else None,
        "overall": overall,
        "strata": strata,
        "floors": [check.as_json() for check in floors],
        "floors_ok": all(check.ok for check in floors),
        "cases": [result.as_json() for result in results],
    }


def write_json(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


def write_html(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report), encoding="utf-8")


# --- HTML ---------------------------------------------------------------------------------------

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#1b1f24;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}.meta{color:#555}table{border-collapse:collapse;margin:6px 0 12px;width:100%}
th,td{border:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}th{background:#f4f5f7}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.ok{color:#116329;font-weight:600}
.bad{color:#b42318;font-weight:600}.small{font-size:12px;color:#555}code{font-size:12px}
.pill{display:inline-block;padding:1px 8px;border-radius:9px;font-size:12px}.pill.ok{background:#dcfce7}.pill.bad{background:#fee2e2}
"""


def _pct(rate: dict[str, Any]) -> str:
    if rate["rate"] is None:
        return "—"
    low, high = rate["ci95"]
    return f"{rate['rate']:.1%} <span class='small'>({rate['k']}/{rate['n']}; 95% CI {low:.1%} to {high:.1%})</span>"


def _bar_chart(
    title: str, rows: list[tuple[str, dict[str, Any]]], *, reference: float | None = None, floor: float | None = None
) -> str:
    """Horizontal bars (rate) with Wilson-interval whiskers; optional reference and floor lines."""
    rows = [(label, rate) for label, rate in rows if rate["n"]]
    if not rows:
        return ""
    left, width, bar_h, gap = 250, 460, 16, 8
    height = 30 + len(rows) * (bar_h + gap) + 20
    scale = width / 1.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<text x="0" y="16" font-size="13" font-weight="600">{escape(title)}</text>',
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = left + tick * scale
        parts.append(f'<line x1="{x:.1f}" y1="24" x2="{x:.1f}" y2="{height - 18}" stroke="#eee"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{height - 4}" font-size="10" text-anchor="middle" fill="#666">{tick:.0%}</text>'
        )
    for index, (label, rate) in enumerate(rows):
        y = 30 + index * (bar_h + gap)
        value = rate["rate"]
        low, high = rate["ci95"]
        colour = "#2563eb" if floor is None or value >= floor else "#dc2626"
        parts.append(
            f'<text x="{left - 6}" y="{y + bar_h - 4}" font-size="12" text-anchor="end">{escape(label)} (n={rate["n"]})</text>'
        )
        parts.append(
            f'<rect x="{left}" y="{y}" width="{value * scale:.1f}" height="{bar_h}" fill="{colour}" opacity="0.8"/>'
        )
        mid = y + bar_h / 2
        parts.append(
            f'<line x1="{left + low * scale:.1f}" y1="{mid}" x2="{left + high * scale:.1f}" y2="{mid}" stroke="#111" stroke-width="1.5"/>'
        )
        for end in (low, high):
            parts.append(
                f'<line x1="{left + end * scale:.1f}" y1="{mid - 4}" x2="{left + end * scale:.1f}" y2="{mid + 4}" stroke="#111" stroke-width="1.5"/>'
            )
        parts.append(f'<text x="{left + width + 6}" y="{y + bar_h - 4}" font-size="12">{value:.1%}</text>')
    for line_value, dash, colour, name in ((reference, "4 3", "#111", "overall"), (floor, "2 2", "#dc2626", "floor")):
        if line_value is not None:
            x = left + max(0.0, min(1.0, line_value)) * scale
            parts.append(
                f'<line x1="{x:.1f}" y1="24" x2="{x:.1f}" y2="{height - 18}" stroke="{colour}" stroke-dasharray="{dash}"><title>{name} {line_value:.1%}</title></line>'
            )
    parts.append("</svg>")
    return "".join(parts)


def render_html(report: dict[str, Any]) -> str:
    overall = report["overall"]
    rates = overall["rates"]
    out: list[str] = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' content='width=device-width,initial-scale=1'>",
        f"<title>Pathways evaluation — {escape(report['generated_at'])}</title><style>{_CSS}</style></head><body>",
        "<h1>Pathways evaluation</h1>",
        f"<p class='meta'>{escape(report['generated_at'])} · mode <b>{escape(report['mode'])}</b> · suites {escape(', '.join(report['suites']))} · "
        f"{overall['traces']} traces, {overall['turns']} turns"
        + (f" · {report['seconds']} s" if report.get("seconds") is not None else "")
        + "</p>",
        "<h2>Floors</h2><table><tr><th>metric</th><th>floor</th><th>result</th><th>detail</th></tr>",
    ]
    for check in report["floors"]:
        badge = "<span class='pill ok'>pass</span>" if check["ok"] else "<span class='pill bad'>FAIL</span>"
        out.append(
            f"<tr><td><code>{escape(check['metric'])}</code></td><td>{escape(check['floor'])}</td><td>{badge}</td><td class='small'>{escape(check['message'])}</td></tr>"
        )
    out.append("</table>")

    out.append("<h2>Overall</h2>")
    out.append(_bar_chart("Rates with Wilson 95% intervals", [(name, rates[name]) for name in HEADLINE]))
    out.append("<table><tr><th>metric</th><th>value</th></tr>")
    for name in HEADLINE:
        out.append(f"<tr><td><code>{name}</code></td><td class='num'>{_pct(rates[name])}</td></tr>")
    counts, latency, llm = overall["counts"], overall["latency_ms"], overall["llm"]
    for name, value in counts.items():
        out.append(f"<tr><td><code>{name}</code></td><td class='num {'ok' if value == 0 else 'bad'}'>{value}</td></tr>")
    out.append(
        f"<tr><td>turn latency p50 / p95 / max</td><td class='num'>{latency['p50']} / {latency['p95']} / {latency['max']} ms</td></tr>"
    )
    out.append(
        f"<tr><td>LLM calls per turn · cost per turn · total cost</td><td class='num'>{llm['calls_per_turn']} · ${llm['cost_per_turn_usd']} · ${llm['cost_total_usd']}</td></tr></table>"
    )

    out.append("<h2>By stratum</h2>")
    need_overall = rates["top_need_accuracy"]["rate"]
    for dim in STRATA:
        groups = report["strata"].get(dim, {})
        out.append(f"<h3>{escape(dim)}</h3>")
        out.append(
            _bar_chart(
                f"top_need accuracy by {dim} (dashed: overall; red: overall minus 10 pts)",
                [(value, summary["rates"]["top_need_accuracy"]) for value, summary in groups.items()],
                reference=need_overall,
                floor=(need_overall - 0.10) if need_overall is not None else None,
            )
        )
        out.append(
            "<table><tr><th>"
            + escape(dim)
            + "</th><th>turns</th>"
            + "".join(f"<th>{c}</th>" for c in STRATUM_COLUMNS)
            + "<th>p50 / p95 ms</th></tr>"
        )
        for value, summary in groups.items():
            cells = "".join(f"<td class='num'>{_pct(summary['rates'][c])}</td>" for c in STRATUM_COLUMNS)
            lat = summary["latency_ms"]
            out.append(
                f"<tr><td>{escape(value)}</td><td class='num'>{summary['turns']}</td>{cells}<td class='num'>{lat['p50']} / {lat['p95']}</td></tr>"
            )
        out.append("</table>")

    failing = [case for case in report["cases"] if not case["passed"]]
    out.append(f"<h2>Failing cases ({len(failing)} of {len(report['cases'])} turns)</h2>")
    out.append(
        "<p class='small'>Text shown is what the navigator stored (redacted). A case fails on any unmet expectation.</p>"
    )
    out.append("<table><tr><th>case</th><th>stratum</th><th>message (redacted)</th><th>what went wrong</th></tr>")
    for case in failing:
        strata = case["strata"]
        out.append(
            f"<tr><td><code>{escape(case['case'])}</code></td><td class='small'>{escape(strata['language'])} · {escape(strata['channel'])} · {escape(strata['need'])}</td>"
            f"<td>{escape(case['redacted_text'][:160])}</td><td class='small'>{'<br>'.join(escape(f) for f in case['failures'])}</td></tr>"
        )
    out.append("</table></body></html>")
    return "\n".join(part for part in out if part)
