"""URL wiring: each app contributes its own routes; pathways_site only mounts them."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from pathways_site import health

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/hsds/", include("resources.urls")),
    path("partners/", include("resources.partner_urls")),
    path("stats/", include("publicstats.urls")),
    path("", include("conversations.urls")),
]
