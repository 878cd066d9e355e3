"""HSDS API routes (with or without a trailing slash); the site mounts them with path("api/hsds/", include("resources.urls"))."""

from __future__ import annotations

from django.urls import re_path

from resources import api

app_name = "hsds"

urlpatterns = [
    re_path(r"^$", api.ApiMetaView.as_view(), name="meta"),
    re_path(r"^services/?$", api.ServiceListView.as_view(), name="services"),
    re_path(r"^services/(?P<pk>[^/]+)/?$", api.ServiceDetailView.as_view(), name="service"),
    re_path(r"^organizations/?$", api.OrganizationListView.as_view(), name="organizations"),
    re_path(r"^organizations/(?P<pk>[^/]+)/?$", api.OrganizationDetailView.as_view(), name="organization"),
    re_path(r"^service_at_locations/?$", api.ServiceAtLocationListView.as_view(), name="service_at_locations"),
    re_path(
        r"^service_at_locations/(?P<pk>[^/]+)/?$", api.ServiceAtLocationDetailView.as_view(), name="service_at_location"
    ),
    re_path(r"^taxonomies/?$", api.TaxonomyListView.as_view(), name="taxonomies"),
    re_path(r"^taxonomies/(?P<pk>[^/]+)/?$", api.TaxonomyDetailView.as_view(), name="taxonomy"),
    re_path(r"^taxonomy_terms/?$", api.TaxonomyTermListView.as_view(), name="taxonomy_terms"),
    re_path(r"^taxonomy_terms/(?P<pk>[^/]+)/?$", api.TaxonomyTermDetailView.as_view(), name="taxonomy_term"),
]
