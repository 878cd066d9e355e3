"""Benchmark resources.selectors.match: p95 on the real directory and on 50,000 synthetic services.

Runs in its own database, `bench_resources`, created on the same PostgreSQL server as the dev
database before Django starts and dropped at exit (bench/benchdb.py: the process never connects to
the dev database). Targets: p95 ≤ 10 ms on the real directory, ≤ 30 ms on 50,000 services. Writes
bench/results/resources.json. Knobs (env, for a quick check): BENCH_RESOURCES_SYNTHETIC (50000),
BENCH_RESOURCES_CALLS (300).
"""

from __future__ import annotations

import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")

from bench.benchdb import own_database, results_dir  # noqa: E402

BENCH_DB = own_database("bench_resources")
django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

CALLS = int(os.environ.get("BENCH_RESOURCES_CALLS", "300"))
SYNTHETIC = int(os.environ.get("BENCH_RESOURCES_SYNTHETIC", "50000"))
TARGET_REAL_MS = 10.0
TARGET_SYNTHETIC_MS = 30.0
CENTRES = {
    "houston": (29.76, -95.37),
    "dallas_fort_worth": (32.78, -96.90),
    "austin": (30.27, -97.74),
    "san_antonio": (29.42, -98.49),
    "el_paso": (31.76, -106.49),
    "rio_grande_valley": (26.20, -98.00),
    "corpus_christi": (27.80, -97.40),
    "west_texas": (33.0, -101.9),
    "east_texas": (32.0, -94.8),
    "other": (31.55, -97.15),
}


def _migrate() -> None:
    # Only the apps the directory needs: the bench does not depend on other apps' migrations.
    for app in ("auth", "resources", "audit"):  # auth pulls in contenttypes first
        call_command("migrate", app, verbosity=0)


def _queries(rng: random.Random) -> list[dict[str, object]]:
    from resources.taxonomy import NEED_CATEGORIES

    queries = []
    for _ in range(CALLS):
        region = rng.choice([*CENTRES, "statewide"])
        near = None
        if region in CENTRES and rng.random() < 0.6:
            lat, lon = CENTRES[region]
            near = (lat + rng.uniform(-0.2, 0.2), lon + rng.uniform(-0.2, 0.2))
        queries.append(
            {
                "category": rng.choice(NEED_CATEGORIES),
                "region": region,
                "near": near,
                "language": rng.choice([None, "es"]),
                "needs": ("id_not_required",) if rng.random() < 0.1 else (),
            }
        )
    return queries


def _measure(queries: list[dict[str, object]]) -> dict[str, float]:
    from resources.selectors import match

    for query in queries:
        match(**query)  # one untimed pass: warm the buffer cache, plans and the connection
    timings = []
    for query in queries:
        start = time.perf_counter()
        match(**query)
        timings.append((time.perf_counter() - start) * 1000)
    timings.sort()
    return {
        "calls": len(timings),
        "p50_ms": round(statistics.median(timings), 2),
        "p95_ms": round(timings[int(len(timings) * 0.95) - 1], 2),
        "max_ms": round(timings[-1], 2),
    }


def _synthesize(rng: random.Random, count: int) -> None:
    from resources.models import Attribute, Location, Organization, Phone, Schedule, Service, ServiceAtLocation
    from resources.services import attribute_term
    from resources.taxonomy import NEED_CATEGORIES

    term = attribute_term("id_not_required")
    per_org = 100
    orgs = [
        Organization(slug=f"synthetic-{index}", name=f"Synthetic Org {index}") for index in range(-(-count // per_org))
    ]
    Organization.objects.bulk_create(orgs, batch_size=1000)
    batch = 5000
    for start in range(0, count, batch):
        services, locations, links, phones, schedules, attributes = [], [], [], [], [], []
        for index in range(start, min(start + batch, count)):
            org = orgs[index // per_org]
            statewide = rng.random() < 0.02
            service = Service(
                organization=org,
                slug=f"synthetic-service-{index}",
                name=f"Synthetic Service {index}",
                categories=rng.sample(NEED_CATEGORIES, rng.randint(1, 3)),
                languages=rng.choice([["en"], ["en", "es"], ["es"]]),
                status=rng.choices(["active", "temporarily_closed", "defunct"], [0.9, 0.05, 0.05])[0],
                is_statewide=statewide,
                source_verified=rng.random() < 0.8,
            )
            services.append(service)
            phones.append(Phone(organization=org, service=service, number=f"+1713{rng.randint(2000000, 9999999)}"))
            if rng.random() < 0.5:
                opens = rng.choice(["08:00", "09:00", "00:00"])
                schedules.append(
                    Schedule(
                        service=service,
                        byday=rng.choice(["MO,TU,WE,TH,FR", "MO,TU,WE,TH,FR,SA,SU"]),
                        opens_at=opens,
                        closes_at="23:59" if opens == "00:00" else "17:00",
                    )
                )
            if rng.random() < 0.2:
                attributes.append(Attribute(service=service, taxonomy_term=term, value="true"))
            if not statewide:
                region = rng.choice(list(CENTRES))
                lat, lon = CENTRES[region]
                location = Location(
                    organization=org,
                    city="Synthetic",
                    region=region,
                    latitude=lat + rng.uniform(-0.4, 0.4),
                    longitude=lon + rng.uniform(-0.4, 0.4),
                    geo_precision="exact",
                )
                locations.append(location)
                links.append(ServiceAtLocation(service=service, location=location))
        for model, rows in (
            (Service, services),
            (Location, locations),
            (ServiceAtLocation, links),
            (Phone, phones),
            (Schedule, schedules),
            (Attribute, attributes),
        ):
            model.objects.bulk_create(rows, batch_size=2000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def main() -> None:
    from resources.models import Service
    from resources.services import directory_load

    rng = random.Random(20250601)
    _migrate()
    directory_load()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    queries = _queries(rng)
    real = {"services": Service.objects.count(), **_measure(queries)}
    print(f"real directory ({real['services']} services): p50 {real['p50_ms']} ms, p95 {real['p95_ms']} ms")
    started = time.perf_counter()
    _synthesize(rng, SYNTHETIC)
    build_s = round(time.perf_counter() - started, 1)
    synthetic = {"services": Service.objects.count(), "build_seconds": build_s, **_measure(queries)}
    print(f"synthetic ({synthetic['services']} services): p50 {synthetic['p50_ms']} ms, p95 {synthetic['p95_ms']} ms")
    result = {
        "benchmark": "resources.selectors.match",
        "database": f"separate database {BENCH_DB!r} on the dev PostgreSQL server, created and dropped by the run",
        "database_in_use": connection.settings_dict["NAME"],
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "load_average_1m_at_end": round(os.getloadavg()[0], 2),
        },
        "targets_ms": {"real_p95": TARGET_REAL_MS, "synthetic_p95": TARGET_SYNTHETIC_MS},
        "real": real,
        "synthetic": synthetic,
        "pass": real["p95_ms"] <= TARGET_REAL_MS and synthetic["p95_ms"] <= TARGET_SYNTHETIC_MS,
    }
    out = results_dir() / "resources.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{'PASS' if result['pass'] else 'FAIL'} — wrote {out}")


if __name__ == "__main__":
    main()
