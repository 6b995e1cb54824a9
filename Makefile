# Two commands do all set-up on a fresh machine (Python 3.11, gcc):
#   make demo   install, then tune three ResNet-18 conv layers on this CPU (SQLite: tensortune.db)
#   make test   install, then run the whole test suite (what CI runs)
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install demo test lint clean

$(BIN)/tensortune: pyproject.toml
	@command -v $(PY) >/dev/null || { echo "need $(PY) on PATH (or: make PY=python3 ...)"; exit 1; }
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[test]"
	@touch $@

install: $(BIN)/tensortune

demo: install
	$(BIN)/tensortune tune --model resnet18 --tasks 6,9,11 --tuner autotvm --trials 48 --plan-size 16 --db tensortune.db

test: install
	$(BIN)/python -m pytest -q tests

lint: install
	$(BIN)/ruff check src tests

clean:
	rm -rf $(VENV) *.egg-info src/*.egg-info
