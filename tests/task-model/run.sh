#!/usr/bin/env bash
# The real-model stage (run by hand for now, not yet by tests/run-all: it asserts that no turn
# ends with exit 0 on a call written as text and left unrun, which the small model still causes
# until the text-call harness of issue 42 lands): one short bug fix (bench/tasks/bugfix/calc) with
# Qwen2.5-Coder-0.5B-Instruct on llama.cpp's llama-server, through `tandem exec`; check.py
# asserts Tandem's behaviour and reports whether the model solved it.
#
#   bash tests/llama/server-setup.sh && bash tests/llama/coder-model-setup.sh 0.5b
#   bash tests/task-model/run.sh
#
# Needs the tandem binary (target/debug/tandem, or TANDEM_BIN) and python3. A hard timeout
# (TANDEM_TASK_MODEL_TIMEOUT, default 240 s) ends the stage and says so.
set -uo pipefail
cd "$(dirname "$0")/../.."

limit=${TANDEM_TASK_MODEL_TIMEOUT:-240}
env_file=${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/llama/paths.env
if [ ! -f "$env_file" ]; then
  echo "task-model stage: no $env_file; run tests/llama/server-setup.sh and tests/llama/coder-model-setup.sh 0.5b" >&2
  exit 1
fi
set -a
# shellcheck disable=SC1090
. "$env_file"
set +a
py=${TANDEM_PYTHON:-python3}
timeout --kill-after=10 "$limit" "$py" tests/task-model/check.py
rc=$?
if [ $rc = 124 ] || [ $rc = 137 ]; then
  echo "task-model stage: the hard timeout of ${limit} s ended it (tests/task-model/run.sh; TANDEM_TASK_MODEL_TIMEOUT raises it)" >&2
  echo "task-model: 0 passed, 1 failed"
fi
exit $rc
