"""Admin-only URLconf for the audit tests, so they do not depend on other apps' routes."""

from django.contrib import admin
from django.urls import path

urlpatterns = [path("admin/", admin.site.urls)]
