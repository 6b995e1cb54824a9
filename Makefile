# Two commands do all set-up on a fresh machine (Python 3.11, gcc):
#   make demo   install (with the ONNX Runtime peer), tune the whole ResNet-18 on this CPU (SQLite:
#               tensortune.db; about 7 minutes on 2 cores), build it into resnet18.so and print its
#               latency beside PyTorch's and ONNX Runtime's; running it again resumes
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

DEMO_TRIALS ?= 640

demo: install
	$(BIN)/pip install -q -e ".[peers]"
	$(BIN)/tensortune tune --model resnet18 --trials $(DEMO_TRIALS) --compare eager,frozen,onnxruntime --db tensortune.db
	$(BIN)/tensortune build --model resnet18 --db tensortune.db --out resnet18.so --force

test: install
	$(BIN)/python -m pytest -q tests

lint: install
	$(BIN)/ruff check src tests

clean:
	rm -rf $(VENV) *.egg-info src/*.egg-info
