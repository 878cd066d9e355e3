"""Schemathesis against the public API's OpenAPI schema (/api/schema/), in-process over WSGI: no 500s.

A handful of generated examples per operation (valid and malformed bodies, odd path ids, missing
or junk tokens) keeps the run to a minute or two; every response must be < 500 and an error must
be the project's JSON error shape, never a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

EXAMPLES_PER_OPERATION = 20


# Loaded at collection: the schema view needs no database. The HSDS directory API has its own
# conformance tests (tests/resources/test_hsds.py) and is left out here.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application()).exclude(
    path_regex="^/api/hsds/"
)


@pytest.fixture(autouse=True)
def _keep_the_test_connection() -> Iterator[None]:
    """Like Django's test client: a request must not close the connection that holds the test's transaction."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.django_db
@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_operation_answers_with_a_server_error(case: Any) -> None:
    response = case.call()
    assert response.status_code < 500, (case.method, case.formatted_path, response.status_code, response.text[:300])
    if response.status_code >= 400 and response.headers.get("content-type", [""])[0].startswith("application/json"):
        assert "Traceback" not in response.text
