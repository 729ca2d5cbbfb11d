#!/usr/bin/env bash
# Create .venv and install requirements.txt (skipped when nothing changed since last time).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.requirements.sha256
want=$(sha256sum requirements.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "Installing Python packages into .venv ..."
  .venv/bin/pip install --quiet --upgrade pip 2>&1 | grep -v '^WARNING: Location' || true
  .venv/bin/pip install --quiet -r requirements.txt 2>&1 | grep -v '^WARNING: Location' || true
  .venv/bin/python -c "import django, torch, bert_score, playwright" # fails loudly if the install did not
  .venv/bin/ruff --version >/dev/null && .venv/bin/mypy --version >/dev/null  # nor the checkers test.sh runs
  echo "$want" > "$stamp"
fi
