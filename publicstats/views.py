"""GET /stats/ (HTML with a chart) and GET /stats/needs.json: public, cached, aggregate only."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from publicstats.selectors import CACHE_SECONDS, need_totals_for_chart, needs_document


@require_GET
@cache_control(public=True, max_age=CACHE_SECONDS)
def needs_json(request: HttpRequest) -> JsonResponse:
    return JsonResponse(needs_document(), json_dumps_params={"ensure_ascii": False})


@require_GET
@cache_control(public=True, max_age=CACHE_SECONDS)
def stats_page(request: HttpRequest) -> HttpResponse:
    document = needs_document()
    totals = need_totals_for_chart(document)
    top = max((value for _, value in totals), default=0) or 1
    bars = [
        {"need": need, "turns": value, "width": round(100 * value / top, 1), "y": 28 * index}
        for index, (need, value) in enumerate(totals)
    ]
    return render(
        request,
        "publicstats/stats.html",
        {
            "document": document,
            "bars": bars,
            "chart_height": max(28 * len(bars), 28),
            "latest": document["needs_by_week"][:1],
        },
    )
