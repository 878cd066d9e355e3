"""The partner page's routes; the site mounts them with path("partners/", include("resources.partner_urls"))."""

from __future__ import annotations

from django.urls import path

from resources import views

app_name = "partners"

urlpatterns = [
    path("", views.dashboard, name="dashboard"),
    path("services/new/", views.service_new, name="service_new"),
    path("services/<str:service_id>/", views.service_edit, name="service"),
    path("services/<str:service_id>/notice/", views.service_notice, name="notice"),
    path("services/<str:service_id>/remove/", views.service_remove, name="remove"),
]
