"""One place that turns domain exceptions into API responses; views never build error JSON.

Apps sit below pathways_site and cannot import from it, so a domain error is recognised by shape:
any exception with `http_status`, `code` and `message` attributes (see e.g. conversations.errors).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import ValidationError
from django.db import InterfaceError, OperationalError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger(__name__)


def _is_domain_error(exc: Exception) -> bool:
    return all(hasattr(exc, attr) for attr in ("http_status", "code", "message"))


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """Map domain, Django and DRF errors onto {"error": {"code", "message"}} responses."""
    if _is_domain_error(exc):
        return Response({"error": {"code": exc.code, "message": exc.message}}, status=exc.http_status)  # type: ignore[attr-defined]
    if isinstance(exc, ValidationError):
        return Response({"error": {"code": "invalid", "message": "; ".join(exc.messages)}}, status=400)
    if isinstance(exc, OperationalError | InterfaceError):
        # The database is down or restarting: a clean, retryable answer in the API's shape (the
        # fault suite found an HTML 500 here). Logged by class only: driver messages may hold SQL.
        logger.error("database unavailable during an API request: %s", type(exc).__name__)
        response = Response(
            {
                "error": {
                    "code": "unavailable",
                    "message": "The service is briefly unavailable. Please try again in a minute.",
                }
            },
            status=503,
        )
        response["Retry-After"] = "30"
        return response
    handled = drf_exception_handler(exc, context)
    if handled is None:
        return None
    response = handled
    detail = response.data
    code = str(getattr(exc, "default_code", "error"))
    if isinstance(detail, dict) and set(detail) == {"detail"}:
        response.data = {"error": {"code": code, "message": str(detail["detail"])}}
    else:
        response.data = {"error": {"code": "invalid", "message": "Some fields are invalid.", "fields": detail}}
    return response
