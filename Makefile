# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PORT   ?= 8501

.PHONY: install run check test bench team-bench chromium nginx sample lock clean lab

## The exact versions of requirements.lock, then the project itself (its dependencies are all locked).
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.lock
	$(PY) -m pip install -q --no-deps -e .
	touch $(STAMP)

install: $(STAMP)

## Serve the app on the bundled (synthetic) sample corpus. While no lead account exists, the one-time
## setup token is printed first (the app itself then does not print another). The server takes no
## client address from X-Forwarded-For (FORWARDED_ALLOW_IPS empty); a reverse proxy is named in
## GROUNDWORK_TRUSTED_PROXIES instead (docs/security.md).
run: install
	-$(PY) -m corpus users setup-token
	GROUNDWORK_ANNOUNCE_SETUP_TOKEN=false FORWARDED_ALLOW_IPS= $(PY) deploy/serve.py --server.port $(PORT) --server.headless true

## Debian's chromium for the browser tests (no browser download is possible here).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing chromium with apt-get"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }

## Debian's nginx, for the test of `make lab`'s set-up (the proxy in front of the replicas).
nginx:
	@command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { \
	  echo "installing nginx with apt-get"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq nginx >/dev/null; }

## Install everything the tests need and run every test (the lint, format and type checks among them:
## tests/test_build.py), one test process per CPU (a module's tests
## stay in one process, with its served app; the browser modules go first, in the order conftest
## gives). `.venv/bin/python -m pytest` alone runs them in one. Python's bytecode caches are written
## even where the environment turns them off: every test process and served app would otherwise
## compile (and pytest rewrite) the same modules again.
test: install chromium nginx
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n auto --dist loadscope --no-loadscope-reorder

## The first tier, for a quick answer while developing: lint, format and types (tests/test_build.py) and every
## test that needs neither a browser nor PostgreSQL (unit tests and the pages through AppTest). A test's
## fixtures mark its tier (tests/conftest.py), whatever its module declares.
check: install
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n auto --dist loadscope --no-loadscope-reorder -m "not browser and not postgres"

## Speed targets: prints a table and writes bench/results.json.
bench: install chromium nginx
	$(PY) bench/run.py

## The team benchmark alone (also part of `make bench`): 50 coders and a lead on `make lab`'s set-up.
team-bench: install chromium nginx
	$(PY) bench/run.py team

## A lab's set-up on this machine (docs/deploy.md): PostgreSQL, 3 replicas on one data directory,
## nginx in front on http://127.0.0.1:8080 (needs the postgresql and nginx packages). Ctrl-C stops it.
lab: install
	$(PY) deploy/local.py --replicas 3 --port 8080

## Regenerate the committed sample corpus (its README is kept).
sample: install
	cp sample_data/README.md .sample_README.md
	$(PY) -m corpus generate --seed 7 sample_data --overwrite
	mv .sample_README.md sample_data/README.md

## Resolve the dependencies of pyproject.toml (and the test extra) again into requirements.lock.
lock: install
	$(PY) -m pip install -q uv
	$(VENV)/bin/uv pip compile pyproject.toml --extra test --python-version 3.11 \
	  --python-platform x86_64-manylinux_2_28 --no-header --annotation-style line -o requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache bench/results.json
