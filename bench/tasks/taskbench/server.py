"""One llama-server for a whole run, and a recording proxy in front of it.

Every agent talks to the proxy, which passes each request and its answer through unchanged (a
stream stays a stream) and records, per chat request: the agent's `max_tokens`, `temperature`
and whether it sent tools; the answer's finish reason, tool calls, and the server's own
`timings`/`usage` (prompt tokens, cached ones included, and generated tokens). The same figures
for every agent, whatever each counts itself.
"""

import http.client
import http.server
import json
import os
import socket
import subprocess
import threading
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    def __init__(self, binary, model, window, log_path, threads=2, extra=()):
        self.port = free_port()
        self.log = open(log_path, "wb")
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(binary))
        self.proc = subprocess.Popen(
            [binary, "-m", model, "--jinja", "-c", str(window), "-t", str(threads), "-np", "1",
             "--host", "127.0.0.1", "--port", str(self.port), "--metrics", *extra],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        self.url = f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout=300):
        # Loading the model is the only wait; /health answers 503 until it is loaded.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"llama-server exited with {self.proc.returncode}; log: {self.log.name}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=5) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            time.sleep(0.5)
        raise SystemExit(f"llama-server was not ready within {timeout} s; log: {self.log.name}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _summarize_answer(body, streamed):
    """finish reason, tool calls, content length, usage and timings of one chat answer."""
    out = {"finish_reason": None, "tool_calls": 0, "content_chars": 0, "usage": None, "timings": None}
    chunks = []
    if streamed:
        for line in body.split(b"\n"):
            line = line.strip()
            if line.startswith(b"data:") and line[5:].strip() not in (b"", b"[DONE]"):
                try:
                    chunks.append(json.loads(line[5:]))
                except ValueError:
                    pass
    else:
        try:
            chunks.append(json.loads(body))
        except ValueError:
            return out
    ids = set()
    for c in chunks:
        if not isinstance(c, dict):
            continue
        if c.get("usage"):
            out["usage"] = c["usage"]
        if c.get("timings"):
            out["timings"] = c["timings"]
        for ch in c.get("choices") or []:
            if ch.get("finish_reason"):
                out["finish_reason"] = ch["finish_reason"]
            msg = ch.get("delta") or ch.get("message") or {}
            out["content_chars"] += len(msg.get("content") or "")
            for i, tc in enumerate(msg.get("tool_calls") or []):
                ids.add(tc.get("index", i) if streamed else i)
    out["tool_calls"] = len(ids)
    return out


class Proxy:
    """A loopback HTTP proxy to `upstream` that records the chat requests of the current label."""

    def __init__(self, upstream_port):
        self.records = []
        self.label = None
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                req = {}
                chat = self.path.rstrip("/").endswith("/chat/completions")
                if chat and body:
                    try:
                        req = json.loads(body)
                    except ValueError:
                        req = {}
                label, started = proxy.label, time.monotonic()
                conn = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=3600)
                headers = {k: v for k, v in self.headers.items()
                           if k.lower() not in ("host", "connection", "accept-encoding")}
                try:
                    conn.request(self.command, self.path, body=body, headers=headers)
                    resp = conn.getresponse()
                except OSError as e:
                    self.send_error(502, f"llama-server: {e}")
                    return
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                kept = []
                try:
                    while True:
                        data = resp.read1(65536)
                        if not data:
                            break
                        if chat:
                            kept.append(data)
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                except OSError:
                    pass  # the agent hung up (cancelled, or killed at the cap)
                finally:
                    conn.close()
                if chat:
                    rec = {
                        "label": label,
                        "status": resp.status,
                        "seconds": round(time.monotonic() - started, 2),
                        "max_tokens": req.get("max_tokens", req.get("max_completion_tokens")),
                        "temperature": req.get("temperature"),
                        "tools": len(req.get("tools") or []),
                        "messages": len(req.get("messages") or []),
                        "stream": bool(req.get("stream")),
                        "id_slot": req.get("id_slot"),
                    }
                    rec.update(_summarize_answer(b"".join(kept), rec["stream"]))
                    t = rec.get("timings") or {}
                    u = rec.get("usage") or {}
                    rec["prompt_tokens"] = u.get("prompt_tokens") or (
                        (t.get("prompt_n") or 0) + (t.get("cache_n") or 0)) or None
                    rec["completion_tokens"] = u.get("completion_tokens") or t.get("predicted_n")
                    with proxy.lock:
                        proxy.records.append(rec)

            do_GET = do_POST = do_PUT = do_DELETE = _forward

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def of(self, label):
        with self.lock:
            return [r for r in self.records if r["label"] == label]

    def stop(self):
        self.server.shutdown()
