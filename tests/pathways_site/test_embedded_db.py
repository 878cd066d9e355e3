"""The embedded PostgreSQL starts on first use, is reused by later processes, and survives racing starters."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from pathlib import Path
import psycopg
from pathways_site.embedded_db import ensure_database
url = ensure_database(Path(sys.argv[1]), "probe")
with psycopg.connect(url) as conn:
    pid = conn.execute("SELECT pg_postmaster_start_time()::text").fetchone()[0]
    version = conn.execute("SHOW server_version").fetchone()[0]
print(json.dumps({"url": url, "started": pid, "version": version}))
"""


def _probe(pgdata: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", PROBE, str(pgdata)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _result(process: subprocess.Popen[str]) -> dict[str, str]:
    out, err = process.communicate(timeout=180)
    assert process.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def pgdata(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    path = tmp_path_factory.mktemp("embedded") / "pgdata"
    yield path
    from pathways_site.embedded_db import stop

    stop(path)


@pytest.mark.slow
def test_it_starts_on_first_use_and_later_processes_reuse_it(pgdata: Path) -> None:
    first = _result(_probe(pgdata))
    second = _result(_probe(pgdata))
    assert first["version"].startswith("18")
    # Same postmaster start time: the second process attached instead of starting another server.
    assert first["started"] == second["started"]
    assert (pgdata / "PG_VERSION").read_text().strip() == "18"


@pytest.mark.slow
def test_two_processes_starting_at_once_get_one_server(pgdata: Path) -> None:
    racers = [_probe(pgdata) for _ in range(3)]
    results = [_result(process) for process in racers]
    assert len({result["started"] for result in results}) == 1
    assert len({result["url"] for result in results}) == 1


@pytest.mark.django_db
def test_the_vector_extension_is_installed_by_migration() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT extname FROM pg_extension WHERE extname = 'vector'")
        assert cursor.fetchone() == ("vector",)
        cursor.execute("SELECT '[1,2,3]'::vector <=> '[1,2,4]'::vector")
        assert 0 < cursor.fetchone()[0] < 0.1


@pytest.mark.django_db
def test_tests_run_on_real_postgresql_never_sqlite() -> None:
    assert connection.vendor == "postgresql"
    assert connection.settings_dict["NAME"].startswith("test_")
