# Pathways — the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | sha1sum | cut -c1-12)
HOST ?= 127.0.0.1
PORT ?= 8000
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: run test check lint imports typecheck pytest bench venv db-stop setup worker beat clean-venv load faults validate

## venv: create .venv and install pinned requirements (skipped when requirements are unchanged)
venv: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt
	@command -v $(PY) >/dev/null || { echo "Python 3.11 is required ($(PY) not found)"; exit 1; }
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# torch first, by exact version, so no dependency can pull a different (CUDA) build
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -r requirements-dev.txt
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

## setup: database, migrations, seed data, translations and static files
setup: venv
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py seed_demo
	$(BIN)/python manage.py collectstatic --noinput -v 0

## run: everything, then serve chat at / and admin at /admin/ on http://$(HOST):$(PORT)
run: setup
	@echo "Pathways on http://$(HOST):$(PORT)/  (admin: http://$(HOST):$(PORT)/admin/)  Ctrl-C stops."
	exec $(BIN)/uvicorn pathways_site.asgi:application --host $(HOST) --port $(PORT) --lifespan off

## test: ruff, import-linter, mypy and the whole pytest suite against real PostgreSQL
test: venv lint imports typecheck pytest

check: test

lint: venv
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

imports: venv
	$(BIN)/lint-imports

## typecheck: mypy with django-stubs (configured in pyproject.toml). The Django plugin imports the settings;
## the database URL it is given is parsed, never connected to, so no server starts for a type check.
typecheck: venv
	DATABASE_URL=postgresql://typecheck@127.0.0.1:1/typecheck $(BIN)/mypy

## pytest: the suite; the Redis and browser suites run when a Redis answers on 127.0.0.1:6379 (REDIS_URL is
## exported for it, database REDIS_TEST_DB, default 0) and Debian's Chromium is installed; otherwise they are
## skipped and the run says which and why, before and after.
pytest: venv
	@skipped=""; \
	if [ -z "$$REDIS_URL" ]; then \
	  if $(BIN)/python -c "import socket, sys; s = socket.create_connection(('127.0.0.1', 6379), 1); s.sendall(b'PING\r\n'); sys.exit(0 if s.recv(16).startswith(b'+PONG') else 1)" 2>/dev/null; then \
	    export REDIS_URL="redis://127.0.0.1:6379/$${REDIS_TEST_DB:-0}"; echo "Redis answers on 127.0.0.1:6379: REDIS_URL=$$REDIS_URL"; \
	  else \
	    skipped="$$skipped  redis: nothing answers PING on 127.0.0.1:6379 and REDIS_URL is unset (start redis-server, or set REDIS_URL)\n"; \
	  fi; \
	fi; \
	if [ ! -x /usr/bin/chromium ]; then \
	  skipped="$$skipped  browser: Debian's Chromium is not at /usr/bin/chromium (apt-get install chromium; .ci/run does it)\n"; \
	fi; \
	if [ -n "$$skipped" ]; then printf "these suites will be skipped:\n$$skipped"; fi; \
	$(BIN)/python -m pytest $(PYTEST_ARGS); status=$$?; \
	if [ -n "$$skipped" ]; then printf "skipped suites:\n$$skipped"; fi; \
	exit $$status

## bench: benchmarks; results in bench/results/*.json. Each bench creates, migrates and drops its own
## database (bench/benchdb.py): the development database is never connected to.
bench: venv
	@failed=""; for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || failed="$$failed $$script"; done; \
	if [ -n "$$failed" ]; then echo "targets missed in:$$failed (see bench/results/*.json)"; exit 1; fi

## faults: the slow fault-injection tests (worker kill needs REDIS_URL, e.g. redis://127.0.0.1:6379/5)
faults: venv
	$(BIN)/python -m pytest tests/reliability -q -m "slow or redis"

## load: bounded loopback soak of web, WebSocket, SMS and approvals (LOAD_SECONDS, default 300)
load: venv
	$(BIN)/python bench/load.py

worker: venv
	$(BIN)/celery -A pathways_site worker -l info

beat: venv
	$(BIN)/celery -A pathways_site beat -l info

## db-stop: stop the embedded PostgreSQL (it is otherwise left running for the next process)
db-stop: venv
	$(BIN)/python -c "from pathlib import Path; from pathways_site.embedded_db import stop; print('stopped' if stop(Path('var/pgdata').resolve()) else 'not running')"

## validate: the message model on its thirteenth frozen blind set (blind13) and the answerability gate on its fourth (blind4), against the issues' goals
validate: venv
	$(BIN)/python manage.py migrate --noinput -v 0
	$(BIN)/python manage.py corpus -v 0 load
	@failed=""; \
	$(BIN)/python manage.py safety evaluate --split blind13 --floors goal || failed="$$failed message-model"; \
	$(BIN)/python manage.py corpus evaluate --blind --blind-set blind4 --floors goal || failed="$$failed answerability-gate"; \
	if [ -n "$$failed" ]; then echo "below the goals:$$failed (reports in var/)"; exit 1; fi
