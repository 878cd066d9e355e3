"""Settings validation: production refuses development-only configuration with a one-line error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
GOOD_SECRET = "q8Vn2-ZpT4rLw9sKe7YbHc3UjXa6MfGd5RtNy1BoPiQzW0vEmLk"  # a sample, never used for real

SETUP = "import django; django.setup(); print('ok')"


def _run(env: dict[str, str], code: str = SETUP, *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "DATABASE_URL", "DJANGO_ENV"}}
    base.update({"DJANGO_SETTINGS_MODULE": "pathways_site.settings"})
    base.update(env)
    command = [sys.executable, "-c", code] if not args else [sys.executable, "manage.py", *args]
    return subprocess.run(command, cwd=ROOT, env=base, capture_output=True, text=True, timeout=120, check=False)


def _production(**overrides: str) -> dict[str, str]:
    env = {
        "DJANGO_ENV": "production",
        "DEBUG": "false",
        "SECRET_KEY": GOOD_SECRET,
        "FIELD_ENCRYPTION_KEY": "a" * 43 + "=",
        "DATABASE_URL": settings.DATABASE_URL,
        "ALLOWED_HOSTS": "pathways.example.org",
    }
    env.update(overrides)
    return {k: v for k, v in env.items() if v != "<unset>"}


def _last_line(result: subprocess.CompletedProcess[str]) -> str:
    return result.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("overrides", "variable"),
    [
        ({"DEBUG": "true"}, "DEBUG"),
        ({"SECRET_KEY": "<unset>"}, "SECRET_KEY"),
        ({"SECRET_KEY": "generated-abc" + GOOD_SECRET}, "SECRET_KEY"),
        ({"DATABASE_URL": "<unset>"}, "DATABASE_URL"),
        ({"FIELD_ENCRYPTION_KEY": "<unset>"}, "FIELD_ENCRYPTION_KEY"),
    ],
)
def test_production_refuses_to_start_and_names_the_variable(overrides: dict[str, str], variable: str) -> None:
    result = _run(_production(**overrides))
    assert result.returncode != 0
    assert "ImproperlyConfigured" in _last_line(result)
    assert variable in _last_line(result)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEBUG", "maybe"),
        ("TURN_DEADLINE_SECONDS", "soon"),
        ("DJANGO_ENV", "prod"),
        ("AFTER_HOURS_POLICY", "send_everything"),
        ("APPROVAL_SLA_MINUTES", "0"),
        ("CRISIS_ESCALATION_MINUTES", "soon"),
    ],
)
def test_odd_values_fail_loudly(name: str, value: str) -> None:
    result = _run({name: value})
    assert result.returncode != 0
    assert name in _last_line(result)


def test_check_deploy_passes_with_a_sample_production_environment() -> None:
    result = _run(_production(), SETUP, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_development_secrets_are_generated_once_and_kept(tmp_path: Path) -> None:
    from pathways_site.local_secrets import load_or_create

    first = load_or_create(tmp_path)
    second = load_or_create(tmp_path)
    assert first == second
    assert first["SECRET_KEY"].startswith("generated-")
    assert (tmp_path / "secrets.json").stat().st_mode & 0o077 == 0


def test_sms_approval_is_on_by_default() -> None:
    result = _run(
        {}, "import django; django.setup(); from django.conf import settings; print(settings.SMS_REQUIRE_APPROVAL)"
    )
    assert result.stdout.strip().endswith("True")
