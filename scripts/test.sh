#!/usr/bin/env bash
# The README's test command: a venv with the test extras, then the whole suite (ruff and mypy included), and
# the README's own install checked as a new user meets it (tests/test_install.py: `pip install .` into a fresh
# venv, then the installed command from outside the checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
# The report and web tests render pages in Debian's headless Chromium; install it when we can (root with
# apt-get), otherwise those tests skip and say why.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
        || echo "could not install chromium: the browser tests will skip" >&2
fi
python3.11 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e '.[test]'
# Two workers, each test file on one of them: half the suite's wall time is real-time meetings waiting, not CPU.
exec .venv/bin/python -m pytest -q -n 2 --dist loadfile --run-install "$@"
