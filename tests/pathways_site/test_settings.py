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


SAMPLE_ENV = ROOT / "docs" / "production.env.example"


def sample_production_env() -> dict[str, str]:
    """docs/production.env.example as a dict (KEY=value lines; comments and blanks skipped)."""
    pairs = {}
    for line in SAMPLE_ENV.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            pairs[key.strip()] = value.strip()
    return pairs


def _production(**overrides: str) -> dict[str, str]:
    """The sample production environment, with this machine's database and Redis db 9 (or none)."""
    env = sample_production_env()
    env.update({"DATABASE_URL": settings.DATABASE_URL, "REDIS_URL": os.environ.get("REDIS_URL", "<unset>")})
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
        ({"PHONE_HASH_KEY": "<unset>"}, "PHONE_HASH_KEY"),
        ({"PHONE_HASH_KEY": "short"}, "PHONE_HASH_KEY"),
        ({"AUDIT_ANCHOR_KEY": "<unset>"}, "AUDIT_ANCHOR_KEY"),
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


def test_check_deploy_passes_with_the_sample_production_environment() -> None:
    """docs/production.env.example as shipped (only the database and Redis are this machine's)."""
    assert sample_production_env()["DJANGO_ENV"] == "production"
    result = _run(_production(), SETUP, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_sends_hsts_and_refuses_plain_http() -> None:
    code = (
        "import django; django.setup(); from django.conf import settings as s;"
        "print(s.SECURE_HSTS_SECONDS, s.SECURE_HSTS_INCLUDE_SUBDOMAINS, s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_AGE)"
    )
    result = _run(_production(), code)
    assert result.stdout.split() == ["31536000", "True", "True", "28800"], result.stderr


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


# --- #21 item 6: DEBUG never on a host others can reach -----------------------------------------


@pytest.mark.parametrize(
    "env",
    [
        {"ALLOWED_HOSTS": "pathways.example.org"},  # DJANGO_ENV missing: development, DEBUG on by default
        {"DJANGO_ENV": "development", "ALLOWED_HOSTS": "*"},
        {"DJANGO_ENV": "test", "DEBUG": "true", "ALLOWED_HOSTS": "localhost,10.0.0.5"},
    ],
)
def test_debug_on_a_non_loopback_host_refuses_to_start_naming_the_variables(env: dict[str, str]) -> None:
    result = _run(env)
    assert result.returncode != 0
    line = _last_line(result)
    assert "ImproperlyConfigured" in line
    assert all(name in line for name in ("DJANGO_ENV", "DEBUG", "ALLOWED_HOSTS")), line


def test_debug_on_loopback_hosts_starts_and_debug_off_serves_public_hosts() -> None:
    assert _run({"ALLOWED_HOSTS": "127.0.0.1,localhost,[::1],app.localhost"}).stdout.strip() == "ok"
    assert _run({"DEBUG": "false", "ALLOWED_HOSTS": "pathways.example.org"}).stdout.strip() == "ok"


def test_is_loopback_host() -> None:
    from pathways_site.env import is_loopback_host

    assert all(map(is_loopback_host, ["localhost", "127.0.0.1", "127.9.9.9", "[::1]", "::1", "testserver"]))
    assert not any(map(is_loopback_host, ["*", ".example.org", "0.0.0.0", "10.0.0.5", "pathways.example.org"]))  # noqa: S104 - a host name checked, nothing bound


def test_seed_demo_refuses_in_production() -> None:
    result = _run(_production(), SETUP, "seed_demo")
    assert result.returncode != 0
    assert "seed_demo refuses" in result.stderr and "production" in result.stderr
