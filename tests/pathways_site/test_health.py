"""/healthz is liveness only; /readyz checks each dependency and answers 503 when one fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings

ROOT = Path(__file__).resolve().parents[2]


def test_healthz_answers_without_touching_dependencies(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_reports_each_check_and_200_when_all_pass(client: Client) -> None:
    response = client.get("/readyz")
    body = response.json()
    assert response.status_code == 200, body
    assert {"database", "pgvector", "embedding_model"} <= set(body["checks"])
    assert all(check["ok"] for check in body["checks"].values())


@pytest.mark.django_db
@override_settings(REDIS_URL="redis://127.0.0.1:1/0")
def test_readyz_is_503_when_redis_is_unreachable(client: Client) -> None:
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["redis"]["ok"] is False
    assert response.json()["checks"]["database"]["ok"] is True


def test_readyz_is_503_when_the_database_is_unreachable() -> None:
    code = (
        "import django, json; django.setup();"
        "from django.test import Client; r = Client().get('/readyz');"
        "print(json.dumps({'status': r.status_code, 'body': r.json()}))"
    )
    env = dict(
        os.environ,
        DATABASE_URL="postgresql://nobody@127.0.0.1:1/nowhere",
        DJANGO_SETTINGS_MODULE="pathways_site.settings",
    )
    env.pop("REDIS_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["status"] == 503
    assert report["body"]["checks"]["database"]["ok"] is False
    assert report["body"]["checks"]["pgvector"]["ok"] is False
