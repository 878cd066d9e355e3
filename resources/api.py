"""Read-only HSDS 3.0 API (../shared/hsds-3.0/openapi.json): services, organizations, locations, taxonomies."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404
from django.utils.dateparse import parse_datetime
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from resources import hsds
from resources.errors import ResourceError
from resources.models import Organization, Service, ServiceAtLocation, Taxonomy, TaxonomyTerm
from resources.taxonomy import NEEDS_TAXONOMY

MAX_PER_PAGE = 200
DEFAULT_PER_PAGE = 50


class InvalidParameter(ResourceError):
    code = "invalid_parameter"


def _int_param(request: Request, name: str, default: int, minimum: int, maximum: int) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError as exc:
        raise InvalidParameter(f"{name} must be a whole number.") from exc
    if not minimum <= value <= maximum:
        raise InvalidParameter(f"{name} must be between {minimum} and {maximum}.")
    return value


def _bool_param(request: Request, name: str) -> bool:
    return request.query_params.get(name, "").lower() in {"1", "true", "yes"}


def _uuid_or_404(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except ValueError as exc:
        raise Http404 from exc


def paginate(request: Request, queryset: QuerySet, render: Any) -> Response:
    """The HSDS page envelope: total_items, total_pages, page_number, size, first/last_page, empty, contents."""
    per_page = _int_param(request, "per_page", DEFAULT_PER_PAGE, 1, MAX_PER_PAGE)
    page = _int_param(request, "page", 1, 1, 1_000_000)
    total = queryset.count()
    total_pages = max(1, math.ceil(total / per_page))
    items = list(queryset[(page - 1) * per_page : page * per_page])
    return Response(
        {
            "total_items": total,
            "total_pages": total_pages,
            "page_number": page,
            "size": len(items),
            "first_page": page == 1,
            "last_page": page >= total_pages,
            "empty": not items,
            "contents": [render(item) for item in items],
        }
    )


class _HsdsSchema(AutoSchema):
    """OpenAPI for the HSDS views: plain JSON objects (the official HSDS schemas are the contract,
    checked in tests/resources/test_hsds.py) and one operation id per view, so `check --deploy`
    has no drf-spectacular warnings."""

    def get_response_serializers(self) -> Any:
        return OpenApiTypes.OBJECT

    def get_operation_id(self) -> str:
        return "hsds_" + type(self.view).__name__.removesuffix("View").lower()


class _ReadOnly(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    schema = _HsdsSchema()


class ApiMetaView(_ReadOnly):
    def get(self, request: Request) -> Response:
        return Response(
            {
                "version": hsds.HSDS_VERSION,
                "profile": "https://docs.openreferral.org/en/latest/hsds/",
                "openapi_url": "https://raw.githubusercontent.com/openreferral/specification/3.0/schema/openapi.json",
            }
        )


class ServiceListView(_ReadOnly):
    def get(self, request: Request) -> Response:
        queryset = Service.objects.select_related("organization").order_by("name", "id")
        params = request.query_params
        if params.get("search"):
            queryset = queryset.filter(Q(name__icontains=params["search"]) | Q(description__icontains=params["search"]))
        if params.get("organization_id"):
            queryset = queryset.filter(organization_id=_uuid_or_filter_none(params["organization_id"]))
        if params.get("taxonomy_term_id"):
            term = (
                TaxonomyTerm.objects.select_related("taxonomy")
                .filter(pk=_uuid_or_filter_none(params["taxonomy_term_id"]))
                .first()
            )
            queryset = _filter_by_terms(queryset, [term] if term else [])
        if params.get("taxonomy_id"):
            terms = list(
                TaxonomyTerm.objects.select_related("taxonomy").filter(
                    taxonomy_id=_uuid_or_filter_none(params["taxonomy_id"])
                )
            )
            queryset = _filter_by_terms(queryset, terms)
        if params.get("modified_after"):
            moment = parse_datetime(params["modified_after"])
            if moment is None:
                raise InvalidParameter("modified_after must be an ISO 8601 date-time.")
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=dt.UTC)
            queryset = queryset.filter(updated_at__gte=moment)
        if _bool_param(request, "minimal"):
            return paginate(
                request,
                queryset,
                lambda s: {
                    "id": str(s.pk),
                    "name": s.name,
                    "status": hsds.STATUS_TO_HSDS[s.status],
                    "last_modified": s.updated_at.isoformat(),
                },
            )
        full = _bool_param(request, "full")
        return paginate(request, queryset, lambda s: hsds.service_json(s, full=full))


def _uuid_or_filter_none(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError as exc:
        raise InvalidParameter("Ids are UUIDs.") from exc


def _filter_by_terms(queryset: QuerySet, terms: list[TaxonomyTerm]) -> QuerySet:
    if not terms:
        return queryset.none()
    condition = Q()
    for term in terms:
        if term.taxonomy.name == NEEDS_TAXONOMY:
            condition |= Q(categories__contains=[term.code])
        else:
            condition |= Q(attributes__taxonomy_term=term, attributes__value="true")
    return queryset.filter(condition).distinct()


class ServiceDetailView(_ReadOnly):
    def get(self, request: Request, pk: str) -> Response:
        service = Service.objects.select_related("organization").filter(pk=_uuid_or_404(pk)).first()
        if service is None:
            raise Http404
        return Response(hsds.service_json(service, full=True))


class OrganizationListView(_ReadOnly):
    def get(self, request: Request) -> Response:
        queryset = Organization.objects.order_by("name", "id")
        if request.query_params.get("search"):
            queryset = queryset.filter(name__icontains=request.query_params["search"])
        full = _bool_param(request, "full")
        return paginate(
            request, queryset, lambda org: hsds.organization_json(org, full=full, services=org.services.order_by("id"))
        )


class OrganizationDetailView(_ReadOnly):
    def get(self, request: Request, pk: str) -> Response:
        org = Organization.objects.filter(pk=_uuid_or_404(pk)).first()
        if org is None:
            raise Http404
        data = hsds.organization_json(org, full=True, services=org.services.order_by("id"))
        if _bool_param(request, "full_service"):
            data["services"] = [hsds.service_json(service, full=True) for service in org.services.order_by("id")]
        return Response(data)


class ServiceAtLocationListView(_ReadOnly):
    def get(self, request: Request) -> Response:
        queryset = ServiceAtLocation.objects.select_related("service__organization", "location").order_by("id")
        if request.query_params.get("search"):
            queryset = queryset.filter(service__name__icontains=request.query_params["search"])
        full = _bool_param(request, "full")
        return paginate(request, queryset, lambda sal: hsds.service_at_location_json(sal, full=full))


class ServiceAtLocationDetailView(_ReadOnly):
    def get(self, request: Request, pk: str) -> Response:
        sal = (
            ServiceAtLocation.objects.select_related("service__organization", "location")
            .filter(pk=_uuid_or_404(pk))
            .first()
        )
        if sal is None:
            raise Http404
        return Response(hsds.service_at_location_json(sal, full=True))


class TaxonomyListView(_ReadOnly):
    def get(self, request: Request) -> Response:
        queryset = Taxonomy.objects.order_by("name")
        if request.query_params.get("search"):
            queryset = queryset.filter(name__icontains=request.query_params["search"])
        return paginate(request, queryset, hsds.taxonomy_json)


class TaxonomyDetailView(_ReadOnly):
    def get(self, request: Request, pk: str) -> Response:
        taxonomy = Taxonomy.objects.filter(pk=_uuid_or_404(pk)).first()
        if taxonomy is None:
            raise Http404
        return Response(hsds.taxonomy_json(taxonomy))


class TaxonomyTermListView(_ReadOnly):
    def get(self, request: Request) -> Response:
        queryset = TaxonomyTerm.objects.select_related("taxonomy").order_by("taxonomy__name", "code")
        params = request.query_params
        if params.get("search"):
            queryset = queryset.filter(Q(name__icontains=params["search"]) | Q(code__icontains=params["search"]))
        if params.get("taxonomy_id"):
            queryset = queryset.filter(taxonomy_id=_uuid_or_filter_none(params["taxonomy_id"]))
        if params.get("parent_id"):
            queryset = queryset.filter(parent_id=_uuid_or_filter_none(params["parent_id"]))
        if _bool_param(request, "top_only"):
            queryset = queryset.filter(parent__isnull=True)
        return paginate(request, queryset, hsds.term_json)


class TaxonomyTermDetailView(_ReadOnly):
    def get(self, request: Request, pk: str) -> Response:
        term = TaxonomyTerm.objects.select_related("taxonomy").filter(pk=_uuid_or_404(pk)).first()
        if term is None:
            raise Http404
        return Response(hsds.term_json(term))
