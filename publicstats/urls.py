from django.urls import path

from publicstats import views

urlpatterns = [
    path("", views.stats_page, name="stats"),
    path("needs.json", views.needs_json, name="stats-needs-json"),
]
