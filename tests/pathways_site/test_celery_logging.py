"""A real Celery worker keeps the PII redaction filter on its log handlers (#21 item 9).

Celery's worker used to replace the root logger's handlers with its own at start-up, so the
`redact_pii` filter of settings.LOGGING was gone from every worker log line. The worker's own
"Task … succeeded …: <return value>" line carries task data: it must come out redacted.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECRET_PHONE = "512-555-0142"


def test_celery_is_told_not_to_replace_the_root_handlers() -> None:
    from pathways_site.celery import app

    assert app.conf.worker_hijack_root_logger is False


def test_the_filter_is_on_the_root_handlers_after_celerys_logging_setup() -> None:
    from celery import signals

    from conversations.hooks.logfilter import RedactPIIFilter
    from pathways_site.celery import app

    app.log.setup(loglevel="INFO", redirect_stdouts=False)
    signals.after_setup_logger.send(sender=None, logger=logging.getLogger(), loglevel=logging.INFO)
    handlers = logging.getLogger().handlers
    assert handlers and all(any(isinstance(f, RedactPIIFilter) for f in h.filters) for h in handlers)


@pytest.mark.redis
@pytest.mark.slow
def test_a_real_worker_log_line_is_redacted(redis_url: str) -> None:
    queue = f"redact-test-{os.getpid()}"
    env = dict(os.environ, REDIS_URL=redis_url, CELERY_TASK_ALWAYS_EAGER="false")
    worker = subprocess.Popen(
        [
            *(sys.executable, "-m", "celery", "-A", "pathways_site", "worker", "--pool=solo", "-Q", queue),
            *("-n", f"{queue}@%h", "-l", "info", "--without-heartbeat", "--without-gossip", "--without-mingle"),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        code = (
            "import django; django.setup();"
            "from pathways_site.celery import ping;"
            f"r = ping.apply_async(args=['call me at {SECRET_PHONE}'], queue='{queue}'); print(r.get(timeout=90))"
        )
        result = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert result.returncode == 0, result.stderr
    finally:
        time.sleep(0.5)  # the success line is written right after the result
        worker.terminate()
        try:
            output, _ = worker.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            output, _ = worker.communicate()
    succeeded = [line for line in output.splitlines() if "pathways_site.ping" in line and "succeeded" in line]
    assert succeeded, output[-3000:]
    assert "[PHONE]" in succeeded[0]
    assert SECRET_PHONE not in output
