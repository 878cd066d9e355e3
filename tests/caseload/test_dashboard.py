"""Dashboard queries over a known set of turns and outbox rows, and the page with inline SVG."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from caseload.dashboard import dashboard_metrics
from conversations.models import OutboundMessage, Turn
from tests.caseload.factories import OutboundFactory, TurnFactory


@pytest.fixture
def activity(cast: Any) -> Any:
    now = timezone.now()
    pins = [
        {"id": "r1", "lat": 29.7, "lon": -95.3},
        {"id": "r2", "lat": None, "lon": None},
        {"id": "r3", "lat": 29.8, "lon": -95.4},
    ]
    rows = [
        # (days ago, crisis, verdict, gated, need, region, reply)
        (0, "none", "pass", False, "id_documents", "houston", "ok"),
        (0, "none", "pass", True, "housing", "houston", "ok"),
        (1, "suicide_self_harm", "", None, "", "", "988"),
        (2, "none", "soft_block", False, "housing", "dallas_fort_worth", "ok"),
        (40, "none", "hard_block", True, "voting", "austin", "ok"),  # outside 30 days
    ]
    for index, (days, crisis, verdict, gated, need, region, reply) in enumerate(rows, start=2):
        state: dict[str, Any] = {"resources": pins} if region == "houston" else {}
        if gated is not None:
            state["retrieval"] = {"confidence": 0.5, "gated": gated}
        turn = TurnFactory(
            conversation=cast.conv_a,
            seq=index,
            crisis=crisis,
            audit_verdict=verdict,
            top_need=need,
            region=region,
            reply=reply,
            status=Turn.Status.ESCALATED if crisis != "none" else Turn.Status.COMPLETED,
            state=state,
        )
        Turn.objects.filter(pk=turn.pk).update(created_at=now - timedelta(days=days))
    approved = OutboundFactory(turn=cast.turn_b, status=OutboundMessage.Status.SENT)
    OutboundMessage.objects.filter(pk=approved.pk).update(
        created_at=now - timedelta(minutes=50), approved_at=now - timedelta(minutes=20)
    )
    return now


@pytest.mark.django_db
def test_it_computes_the_supervisor_metrics(activity: Any) -> None:
    m = dashboard_metrics(days=30, now=activity)
    # the cast's two turns (today, no verdict column) + four inside the window
    assert m.turns_total == 6
    assert m.turns_per_day[-1][1] == 4 and len(m.turns_per_day) == 30
    assert m.crisis_total == 1 and m.escalated_total == 1
    verdicts = {verdict: count for verdict, count, _ in m.verdicts}
    assert verdicts["pass"] == 2 and verdicts["soft_block"] == 1 and verdicts["hard_block"] == 0
    # the cast's turns carry retrieval (not gated) too: 5 checked, 1 gated
    assert (m.gate_checked, m.gate_handoffs) == (5, 1)
    assert m.approval_latency.count == 1 and m.approval_latency.median_minutes == 30.0
    assert dict(m.map_pins_by_region) == {"houston": 4}
    assert m.top_needs_by_region[0] == ("houston", (("housing", 1), ("id_documents", 1)))


@pytest.mark.django_db
def test_the_dashboard_page_draws_inline_svg_and_links_the_eval_report(
    client: Any, cast: Any, activity: Any, settings: Any, tmp_path: Path
) -> None:
    settings.VAR_DIR = tmp_path
    client.force_login(cast.supervisor)
    page = client.get(reverse("admin:caseload_dashboard_changelist")).content.decode()
    assert page.count("<svg") >= 3 and "cdn" not in page.lower()
    assert "No evaluation report yet" in page
    (tmp_path / "eval.html").write_text("<html><body>eval ok</body></html>")
    page = client.get(reverse("admin:caseload_dashboard_changelist")).content.decode()
    assert reverse("admin:caseload_dashboard_eval") in page
    report = client.get(reverse("admin:caseload_dashboard_eval"))
    assert b"eval ok" in b"".join(report.streaming_content)
    assert report["Content-Security-Policy"] == "sandbox"


def test_the_dashboard_shows_the_directory_coverage_matrix(client: Any, cast: Any) -> None:
    from resources.services import directory_load

    directory_load()
    client.force_login(cast.supervisor)
    page = client.get(reverse("admin:caseload_dashboard_changelist")).content.decode()
    assert 'id="directory-coverage"' in page
    assert "<td>west_texas</td>" in page and "5/3" in page  # Harris County CSCD's five offices, Houston supervision
    assert "never dated" in page
