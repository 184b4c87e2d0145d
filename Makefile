# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test

.PHONY: demo test check bench traffic clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e .
	touch $@

$(TSTAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test,hf]'
	touch $(STAMP) $@

DEMO_TRAFFIC := $(sort $(wildcard templates/traffic/*.jsonl))

demo: $(STAMP)
	$(VENV)/bin/advisor analyze $(DEMO_TRAFFIC)
	$(VENV)/bin/advisor report templates $(addprefix --traffic ,$(DEMO_TRAFFIC))
	@echo "advisory written to outputs/skill-radix-scheduler-advisor.md"
	$(VENV)/bin/advisor plan --example scrambled --requests 400 --output outputs/plan-scrambled.md
	@echo "planned advisory (from a workload description) written to outputs/plan-scrambled.md"

# One pytest worker per core (pytest-xdist; at most 4, each holds ~1 GB at its peak), whole
# files per worker so that a module's expensive fixtures (held-out sets, model folders) are
# built once, not once per worker. Plain `pytest` still runs everything in one process.
test: $(TSTAMP)
	$(PY) -m pytest -n auto --maxprocesses 4 --dist loadfile

# The static gate CI runs before the tests: ruff and mypy over advisor/ (settings in pyproject.toml).
check: $(TSTAMP)
	$(PY) -m ruff check advisor
	$(PY) -m mypy

bench: $(TSTAMP)
	$(PY) bench/run.py

traffic: $(STAMP)
	$(PY) templates/generate_traffic.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis .mypy_cache .ruff_cache
