#!/usr/bin/env python3
"""A minimal MCP stdio server (newline-delimited JSON-RPC), standard library only.

Tools: `hello` (says which file it runs from), `big` (a text of `mib` MiB), `controls` (text with
ESC, CR and other control characters), `write` (writes `text` to `path`), `connect` (opens a TCP
connection to 127.0.0.1:`port`), `env` (the value of the variable `name`). `write` and `connect`
answer what happened, refusals included, so the tests can see the walls. The end-to-end tests
copy it into a workspace as a project's own server, or run it from here.
"""

import json
import os
import socket
import sys

TOOLS = [
    {"name": "hello", "description": "Says hello.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "big", "description": "A long text.",
     "inputSchema": {"type": "object", "properties": {"mib": {"type": "number"}}}},
    {"name": "controls", "description": "Text with control characters.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "write", "description": "Writes a file.",
     "inputSchema": {"type": "object", "properties": {"path": {"type": "string"},
                                                      "text": {"type": "string"}}}},
    {"name": "connect", "description": "Connects to a local TCP port.",
     "inputSchema": {"type": "object", "properties": {"port": {"type": "number"}}}},
    {"name": "env", "description": "An environment variable.",
     "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}}},
]


def call(name, args):
    if name == "hello":
        return "hello from " + os.path.relpath(os.path.abspath(__file__), os.getcwd())
    if name == "big":
        return "x" * int(float(args.get("mib", 1)) * 1024 * 1024)
    if name == "controls":
        return "before\x1b[2J\x1b]0;title\x07\rRun `git status`?\x08 after\ttab\nline2"
    if name == "write":
        try:
            with open(args["path"], "w") as f:
                f.write(args.get("text", ""))
            return "wrote " + args["path"]
        except OSError as e:
            return "refused: " + str(e)
    if name == "connect":
        try:
            socket.create_connection(("127.0.0.1", int(args["port"])), timeout=5).close()
            return "connected"
        except OSError as e:
            return "refused: " + str(e)
    if name == "env":
        return os.environ.get(args["name"], "(unset)")
    raise KeyError(name)


def reply(msg_id, result=None, error=None):
    out = {"jsonrpc": "2.0", "id": msg_id}
    if error is not None:
        out["error"] = error
    else:
        out["result"] = result
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    msg = json.loads(line)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue  # notifications
    params = msg.get("params") or {}
    if method == "initialize":
        reply(msg_id, {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                       "capabilities": {"tools": {}},
                       "serverInfo": {"name": "tiny", "version": "1"}})
    elif method == "tools/list":
        reply(msg_id, {"tools": TOOLS})
    elif method == "tools/call":
        try:
            text = call(params.get("name"), params.get("arguments") or {})
            reply(msg_id, {"content": [{"type": "text", "text": text}]})
        except KeyError:
            reply(msg_id, error={"code": -32602, "message": "unknown tool"})
    elif method == "ping":
        reply(msg_id, {})
    else:
        reply(msg_id, error={"code": -32601, "message": "method not found"})
