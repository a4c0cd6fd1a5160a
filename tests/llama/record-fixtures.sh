#!/usr/bin/env bash
# Records what llama-cpp-python's server really sends, into tests/fixtures/llama-cpp-python/.
# Starts three servers (n_ctx 2048 with the default chat format, n_ctx 2048 with
# chatml-function-calling, n_ctx 4096), sends each request with curl and keeps the answer as
# received. See that folder's SOURCES.md for the list
# and tests/llama/WIRE.md for what the recordings show.
#
#   bash tests/llama/setup.sh && bash tests/llama/record-fixtures.sh [OUT_DIR]
#
# Generation uses temperature 0 and a fixed seed, but llama.cpp builds may still differ in the
# text they produce; the shapes are what matters.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here/../fixtures/llama-cpp-python}
mkdir -p "$out"
port_plain=${PORT_PLAIN:-18181}
port_fc=${PORT_FC:-18182}
port_big=${PORT_BIG:-18183}
logs=$(mktemp -d)

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait; rm -rf "$logs"' EXIT
start() { # PORT N_CTX [FORMAT]: starts serve.sh and waits for its READY line
  local port=$1
  TANDEM_LLAMA_LOG=$logs/server-$port.log "$here/serve.sh" "$@" >"$logs/ready-$port" &
  pids+=($!)
  until grep -q READY "$logs/ready-$port"; do
    kill -0 "${pids[-1]}" 2>/dev/null || { echo "server on $port failed: see $logs" >&2; exit 1; }
    sleep 0.2
  done
}
start "$port_plain" 2048
start "$port_fc" 2048 chatml-function-calling
start "$port_big" 4096

# post PORT FILE JSON [curl flags...]: POST to /v1/chat/completions, answer into $out/FILE.
post() {
  local port=$1 file=$2 body=$3
  shift 3
  curl -sN "$@" -o "$out/$file" -H 'content-type: application/json' -d "$body" \
    -w "  $file: HTTP %{http_code}, %{size_download} bytes\n" "http://127.0.0.1:$port/v1/chat/completions"
}

tools='[{"type":"function","function":{"name":"read_file","description":"Read a file from the workspace and return its text.","parameters":{"type":"object","properties":{"path":{"type":"string","description":"Path of the file, relative to the workspace root"}},"required":["path"]}}}]'
system='{"role":"system","content":"You are Tandem, a coding agent. Use the tools when they help."}'
long=$(printf 'apple %.0s' $(seq 3000)) # about 3000 tokens: over a 2048 window

curl -s -o "$out/models.json" "http://127.0.0.1:$port_plain/v1/models"
echo "  models.json"

post "$port_plain" chat-stream-include-usage.sse \
  '{"model":"smollm2","messages":[{"role":"user","content":"Say hello in three words."}],"stream":true,"stream_options":{"include_usage":true},"max_tokens":16,"temperature":0,"seed":1}'

post "$port_plain" chat-overflow.json \
  '{"model":"smollm2","messages":[{"role":"user","content":"'"$long"'"}],"max_tokens":8,"temperature":0,"seed":1}'
# Raw HTTP (headers and chunked framing, --raw): the body is empty, which the decoded form hides.
post "$port_plain" chat-overflow-stream.http \
  '{"model":"smollm2","messages":[{"role":"user","content":"'"$long"'"}],"max_tokens":8,"temperature":0,"seed":1,"stream":true}' \
  -i --raw

post "$port_plain" default-format-tools-stream.sse \
  '{"model":"smollm2","messages":['"$system"',{"role":"user","content":"Read the file src/main.rs"}],"tools":'"$tools"',"tool_choice":"auto","stream":true,"max_tokens":16,"temperature":0,"seed":1}'

post "$port_fc" fc-tool-call-named-stream.sse \
  '{"model":"smollm2","messages":['"$system"',{"role":"user","content":"Read the file src/main.rs"}],"tools":'"$tools"',"tool_choice":{"type":"function","function":{"name":"read_file"}},"stream":true,"temperature":0,"seed":1}'

post "$port_fc" fc-tool-call-auto.json \
  '{"model":"smollm2","messages":['"$system"',{"role":"user","content":"Read the file src/main.rs"}],"tools":'"$tools"',"tool_choice":"auto","temperature":0,"seed":1}'
# The same request streamed: the model picks the tool, and the server cannot stream that.
post "$port_fc" fc-tool-call-auto-stream.http \
  '{"model":"smollm2","messages":['"$system"',{"role":"user","content":"Read the file src/main.rs"}],"tools":'"$tools"',"tool_choice":"auto","stream":true,"temperature":0,"seed":1}' \
  -i --raw
# Without a system message the tools are not rendered; here the model picks "message:".
post "$port_fc" fc-auto-message-stream.sse \
  '{"model":"smollm2","messages":[{"role":"user","content":"Call read_file with path Cargo.toml"}],"tools":'"$tools"',"tool_choice":"auto","stream":true,"temperature":0,"seed":1}'

# A second request while a stream runs interrupts it (interrupt_requests defaults to true).
rm -f "$out/chat-interrupted-stream.http" # else the wait below sees the last recording
post "$port_plain" chat-interrupted-stream.http \
  '{"model":"smollm2","messages":[{"role":"user","content":"Write a long story about a dragon."}],"stream":true,"max_tokens":300,"temperature":0,"seed":1}' \
  -i --raw &
first=$!
seen() { grep -c '^data: {' "$out/chat-interrupted-stream.http" 2>/dev/null || true; }
until [ "$(seen)" -ge 5 ] 2>/dev/null; do sleep 0.05; done
curl -s -o /dev/null -H 'content-type: application/json' \
  -d '{"model":"smollm2","messages":[{"role":"user","content":"Hi"}],"max_tokens":4}' \
  "http://127.0.0.1:$port_plain/v1/chat/completions"
wait "$first" || echo "  chat-interrupted-stream.http: curl exit $? (18 = the response was cut)"

# The same 3000-token prompt inside a 4096 window: one thread evaluates it for 25 s or more, and
# the server sends SSE comments (": ping - <time>") every 15 s before the first chunk.
post "$port_big" chat-long-prompt-pings.http \
  '{"model":"smollm2","messages":[{"role":"user","content":"'"$long"'"}],"max_tokens":8,"temperature":0,"seed":1,"stream":true}' \
  -i --raw

# Volatile headers (date, request id) are blanked so re-recording gives small diffs.
sed -i -E 's/^(date|x-request-id|openai-processing-ms): .*\r$/\1: -\r/' "$out"/*.http

for port in "$port_plain" "$port_fc" "$port_big"; do
  grep -h 'ValueError\|AssertionError' "$logs/server-$port.log" | grep -v '^ *|' | sed "s/^/  server $port log: /" || true
done
