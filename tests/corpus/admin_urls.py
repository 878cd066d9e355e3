"""Admin-only URLs, so corpus admin tests do not depend on other apps' views."""

from django.contrib import admin
from django.urls import path

urlpatterns = [path("admin/", admin.site.urls)]
