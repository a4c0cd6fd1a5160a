#!/usr/bin/env bash
# Installs aider (PyPI `aider-chat`), the benchmark's yardstick, into a cached venv:
#
#   bash bench/tasks/aider-setup.sh     prints the path of its `aider`
#
# Idempotent: the venv lives under $TANDEM_TEST_CACHE/aider/ (default ~/.cache/tandem-test) in a
# folder keyed by the version and the Python, marked whole only once `aider --version` runs.
set -euo pipefail

AIDER_VERSION=0.86.2

root=${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/aider
py=${TANDEM_PYTHON:-}
if [ -z "$py" ]; then
  if [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; else py=$(command -v python3 || true); fi
fi
if [ -z "$py" ] || ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
  echo "aider setup: needs python3 (3.10 to 3.12) with venv (Debian: python3-venv)" >&2
  exit 1
fi
pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv=$root/aider-chat-$AIDER_VERSION-py$pyver
mkdir -p "$root"
exec 9>"$root/.lock"
flock 9
if [ ! -f "$venv/.ok" ]; then
  echo "aider setup: installing aider-chat $AIDER_VERSION into $venv" >&2
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q "aider-chat==$AIDER_VERSION" >&2
  "$venv/bin/aider" --version >&2
  touch "$venv/.ok"
fi
echo "$venv/bin/aider"
