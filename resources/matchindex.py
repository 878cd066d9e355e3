"""Derived matching columns on Service (match_keys, open_ranges), refreshed on every directory write.

Signals cover every ORM save/delete (admin, services, loaders, imports); bulk writers (the
benchmark) call match_index_refresh() themselves. A loader may defer refreshes and run one at the end.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator
from typing import Any

from django.db import connection
from django.db.backends.postgresql.psycopg_any import NumericRange

from resources.hours import Rule, week_ranges

_deferred: contextvars.ContextVar[bool] = contextvars.ContextVar("resources_match_index_deferred", default=False)

_KEYS_SQL = """
UPDATE resources_service s SET match_keys = COALESCE((
    SELECT array_agg(DISTINCT c || '@' || r ORDER BY c || '@' || r)
    FROM unnest(s.categories) AS c,
         (SELECT l.region FROM resources_serviceatlocation sal JOIN resources_location l ON l.id = sal.location_id
           WHERE sal.service_id = s.id AND NOT s.is_statewide
          UNION SELECT 'statewide' WHERE s.is_statewide) AS regions(r)
), ARRAY[]::varchar(64)[])
"""


@contextlib.contextmanager
def match_index_deferred() -> Iterator[None]:
    """Skip per-save refreshes inside the block (the caller refreshes everything once afterwards)."""
    token = _deferred.set(True)
    try:
        yield
    finally:
        _deferred.reset(token)


def match_index_refresh(service_ids: Iterable[Any] | None = None) -> None:
    """Recompute match_keys and open_ranges for the given services (None = all)."""
    from resources.models import Schedule, Service

    ids = None if service_ids is None else [service_id for service_id in service_ids if service_id is not None]
    if ids == []:
        return
    with connection.cursor() as cursor:
        if ids is None:
            cursor.execute(_KEYS_SQL)
        else:
            cursor.execute(_KEYS_SQL + " WHERE s.id = ANY(%s)", [ids])
    rules: dict[Any, list[Rule]] = {}
    schedules = Schedule.objects.all() if ids is None else Schedule.objects.filter(service_id__in=ids)
    for byday, opens, closes, service_id in schedules.values_list("byday", "opens_at", "closes_at", "service_id"):
        rules.setdefault(service_id, []).append(Rule(byday, opens, closes))
    services = Service.objects.all() if ids is None else Service.objects.filter(pk__in=ids)
    changed = []
    for service in services.only("id", "open_ranges").iterator(chunk_size=2000):
        ranges = [NumericRange(start, end, "[)") for start, end in week_ranges(rules.get(service.pk, []))]
        if [(r.lower, r.upper) for r in service.open_ranges] != [(r.lower, r.upper) for r in ranges]:
            service.open_ranges = ranges
            changed.append(service)
    Service.objects.bulk_update(changed, ["open_ranges"], batch_size=2000)


def _affected(instance: Any) -> list[Any]:
    from resources.models import Location, Schedule, Service, ServiceAtLocation

    if isinstance(instance, Service):
        return [instance.pk]
    if isinstance(instance, (Schedule, ServiceAtLocation)):
        return [instance.service_id]
    if isinstance(instance, Location):
        return list(ServiceAtLocation.objects.filter(location_id=instance.pk).values_list("service_id", flat=True))
    return []


def on_directory_change(sender: Any, instance: Any, **kwargs: Any) -> None:
    """Signal receiver: refresh the services a saved or deleted object affects."""
    if _deferred.get() or kwargs.get("raw"):
        return
    match_index_refresh(_affected(instance))
