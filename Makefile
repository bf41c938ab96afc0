# Every target sets itself up: .venv is created when missing and reinstalled when pyproject.toml changes.
PYTHON  ?= python3
PROFILE ?= quick
VENV    := .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed-$(shell $(PYTHON) -c "import hashlib;print(hashlib.sha1(open('pyproject.toml','rb').read()).hexdigest()[:12])")
LOG     := $(VENV)/install.log

.PHONY: setup browser anonymeter reproduce book-student test test-fast verify verify-games bench bench-book bench-scale bench-audit steward-cases bench-synth epsilon-response lint clean

setup: $(STAMP)

# pip installs without compiling every module to bytecode (torch alone has thousands; 66 s -> 25 s
# of installing here): Python compiles what is imported, once, on its first import. That needs
# bytecode writing on, which some machines turn off for every process.
unexport PYTHONDONTWRITEBYTECODE

# torch first, pinned, so that sdv does not pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "installing into $(VENV) (log: $(LOG)) ..."
	@( $(PY) -m pip install --upgrade pip \
	   && $(PY) -m pip install --no-compile torch==2.13.0 \
	   && $(PY) -m pip install --no-compile -e ".[book,test,crosscheck,distributed,dp]" ) > $(LOG) 2>&1 \
	   || (tail -30 $(LOG); echo "installation failed, see $(LOG)"; exit 1)
	@rm -f $(VENV)/.installed-*
	@touch $@

# Chromium from Debian's packages, for the offline-book test and check (skipped when present).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
	 || { echo "installing chromium (Debian package) for the offline-book check ..."; \
	      ( $(SUDO) apt-get install -y --no-install-recommends chromium \
	        || ( $(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends chromium ) \
	      ) > /tmp/privmetrics-browser.log 2>&1 \
	      || { tail -20 /tmp/privmetrics-browser.log; echo "chromium installation failed"; exit 1; }; }

# anonymeter 1.1.0 in an environment of its own (it pins numpy < 1.27), for the cross-check of
# our linkability and inference attacks; without it (no network) that test is skipped, said why
ANONYMETER := .venv-anonymeter
anonymeter: $(ANONYMETER)/.installed

$(ANONYMETER)/.installed:
	@echo "installing anonymeter 1.1.0 into $(ANONYMETER) (its own numpy) ..."
	@( $(PYTHON) -m venv $(ANONYMETER) && $(ANONYMETER)/bin/python -m pip install -q --no-compile "anonymeter==1.1.0" \
	   > $(ANONYMETER)-install.log 2>&1 && touch $@ ) \
	 || echo "anonymeter could not be installed (see $(ANONYMETER)-install.log): its cross-check will be skipped"

reproduce: setup anonymeter
	$(PY) -m privmetrics book --profile $(PROFILE) \
	  $(if $(SCHEDULER),--scheduler $(SCHEDULER)) $(if $(LOCAL_CLUSTER),--local-cluster $(LOCAL_CLUSTER))

# the student edition: the same book without the exercises' solutions, in _build/student/html
# (reuses the executed notebooks of a previous `make reproduce`, else runs them first)
book-student: setup
	$(PY) -m privmetrics book --profile $(PROFILE) --edition student \
	  $(if $(wildcard book/generated/own_data.ipynb),--skip-notebooks)

# --dist worksteal: a worker that runs out takes half of the other's queue (570 s against 624 s
# with xdist's default plan, the same tests)
test: setup browser anonymeter
	$(PY) -m ruff check lib tests
	$(PY) -m ruff format --check lib tests
	$(PY) -m pytest -n 2 --dist worksteal --durations=10

# the quick subset for day-to-day work (tests marked fast in tests/conftest.py), under a minute
test-fast: setup
	$(PY) -m ruff check lib tests
	$(PY) -m ruff format --check lib tests
	$(PY) -m pytest -n 2 -q -m fast

# regenerate a sample of the shipped paper store's cells (two of them the leakage ladder's) from
# scratch and compare every score
verify: setup
	$(PY) -m privmetrics verify --profile paper --sample 12 --budget-minutes 25 --threads 2 \
	  --cells "flchain/AIM ε=10/2" --ladder 2 \
	  --out results/verify-paper.json

# play a sample of the shipped paper store's attack games again from scratch and compare them
verify-games: setup
	$(PY) -m privmetrics verify-games --profile paper --sample 8 --budget-minutes 20 \
	  --out results/verify-games-paper.json

bench: setup
	$(PY) -m privmetrics bench

# the README's commands timed in a fresh clone against their CPU budgets (exit 1 when over)
bench-book: setup
	$(PY) -m privmetrics bench-book $(if $(COMMANDS),--commands "$(COMMANDS)")

bench-scale: setup
	$(PY) -m privmetrics bench-scale $(if $(MILLION),--million)

# the steward's audit at 50,000 rows (default, with a holdout, --targets 5000), each in a fresh process
bench-audit: setup
	$(PY) -m privmetrics bench-audit

# the audit on releases whose answer is known, over three public tables (issue 62), as a table
steward-cases: setup
	$(PY) -m privmetrics steward-cases

bench-synth: setup
	$(PY) -m privmetrics bench-synth --profile paper

# TECHNIQUES=aim,mst for the marginal-based ones (default: PrivBayes and PATE-GAN)
epsilon-response: setup
	$(PY) -m privmetrics epsilon-response --dataset texas --runs 3 \
	  $(if $(TECHNIQUES),--techniques $(TECHNIQUES))

lint: setup
	$(PY) -m ruff check lib tests
	$(PY) -m ruff format --check lib tests

clean:
	rm -rf _build book/generated .pytest_cache
