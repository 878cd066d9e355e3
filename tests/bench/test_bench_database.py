"""The benchmarks write only into their own databases, never into the database DATABASE_URL names."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from bench.benchdb import own_database, with_database

ROOT = Path(__file__).resolve().parents[2]
TABLES = ("resources_organization", "resources_service", "resources_location", "audit_auditevent")


def _counts() -> dict[str, int]:
    with connection.cursor() as cursor:
        counts = {}
        for table in TABLES:
            cursor.execute(f"SELECT count(*) FROM {table}")
            counts[table] = cursor.fetchone()[0]
        return counts


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_resources_bench_leaves_the_development_database_unchanged(tmp_path: Path) -> None:
    """The test database stands in for the development one: the bench subprocess is pointed at it exactly as
    `make bench` is pointed at the dev database, and must leave it as it found it."""
    from resources.models import Organization, Service

    org = Organization.objects.create(slug="dev-org", name="Dev org")  # committed: visible to the subprocess
    Service.objects.create(organization=org, slug="dev-service", name="Dev service", categories=["food"])
    before = _counts()
    suffix = f"_{connection.settings_dict['NAME']}"
    env = {
        **os.environ,
        "DATABASE_URL": with_database(settings.DATABASE_URL, connection.settings_dict["NAME"]),
        "BENCH_DB_SUFFIX": suffix,
        "BENCH_RESULTS_DIR": str(tmp_path),
        "BENCH_RESOURCES_SYNTHETIC": "250",
        "BENCH_RESOURCES_CALLS": "20",
    }
    env.pop("BENCH_KEEP_DB", None)
    run = subprocess.run(
        [sys.executable, "bench/bench_resources.py"],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]

    result = json.loads((tmp_path / "resources.json").read_text())
    assert result["database_in_use"] == f"bench_resources{suffix}"
    assert result["real"]["services"] > 0  # the directory was loaded somewhere ...
    assert result["synthetic"]["services"] == result["real"]["services"] + 250  # ... and the synthetic rows too
    assert _counts() == before  # ... but not here
    assert Service.objects.filter(name__startswith="Synthetic Service").count() == 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_database WHERE datname = %s", [f"bench_resources{suffix}"])
        assert cursor.fetchone()[0] == 0  # dropped at exit


def test_own_database_refuses_once_settings_are_loaded() -> None:
    """Called after Django read its settings, switching databases would be the old silent bug: it raises instead."""
    assert settings.configured
    with pytest.raises(RuntimeError, match="before Django loads its settings"):
        own_database("bench_never_created")


def test_with_database_keeps_host_and_query() -> None:
    assert with_database("postgresql://u:p@h:5432/pathways", "b") == "postgresql://u:p@h:5432/b"
    assert with_database("postgresql://u@/pathways?host=/tmp/x", "b") == "postgresql://u@/b?host=/tmp/x"
