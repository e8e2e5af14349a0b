#!/usr/bin/env bash
# The README's test command: a venv with the test extras, then the whole suite (ruff and mypy included).
set -euo pipefail
cd "$(dirname "$0")/.."
python3.11 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e '.[test]'
exec .venv/bin/python -m pytest -q "$@"
