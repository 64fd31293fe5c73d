# Each target creates the venv it needs, so a fresh clone needs only `make demo` / `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest vscode-check vscode-env-test vscode-e2e clean

$(STAMP): pyproject.toml setup.py indexer/_lines.c
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/agentls demo

# lint-imports: the layers of [tool.importlinter]; src/ first so that it reads this tree even
# when the venv's editable install points at another checkout.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	PYTHONPATH=src $(VENV)/bin/lint-imports

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# Every Python test: unit, integration (a real LiteLLM proxy), end-to-end over stdio and with
# real editors. Tests install what they need (scripts/ensure_*.sh).
pytest: $(STAMP)
	$(VENV)/bin/pytest -q -n 3 --dist worksteal

client-vscode/node_modules/.installed: client-vscode/package-lock.json
	cd client-vscode && npm ci --no-audit --no-fund
	touch $@

# tsc (strict), eslint and the extension's unit tests.
vscode-check: client-vscode/node_modules/.installed
	cd client-vscode && npm run check

# The extension's own server environment for real: builds the shipped package, sets up the venv
# with pip (from the package index; ~1.5 min), serves LSP from it in a shadowing workspace.
vscode-env-test: $(STAMP) client-vscode/node_modules/.installed
	cd client-vscode && npm run compile && npm run test:integration

# The extension in a real VS Code (code-server's build + Chromium + playwright), cached in .cache/.
vscode-e2e: $(STAMP) client-vscode/node_modules/.installed
	bash scripts/vscode_e2e.sh

# Everything above, with the VS Code toolchain set-up overlapping pytest (scripts/test_all.sh).
test: $(STAMP) client-vscode/node_modules/.installed
	bash scripts/test_all.sh

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
