"""URLconf for the resources tests until pathways_site mounts resources.urls (admin + HSDS API only)."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/hsds/", include("resources.urls")),
]
