#!/usr/bin/env python3
"""A minimal MCP stdio server (newline-delimited JSON-RPC), standard library only.

Tools: `hello` (says which file it runs from), `big` (a text of `mib` MiB), `controls` (text with
ESC, CR and other control characters). The end-to-end tests copy it into a workspace as a
project's own server, or run it from here.
"""

import json
import os
import sys

TOOLS = [
    {"name": "hello", "description": "Says hello.",
     "inputSchema": {"type": "object", "properties": {}}},
    {"name": "big", "description": "A long text.",
     "inputSchema": {"type": "object", "properties": {"mib": {"type": "number"}}}},
    {"name": "controls", "description": "Text with control characters.",
     "inputSchema": {"type": "object", "properties": {}}},
]


def call(name, args):
    if name == "hello":
        return "hello from " + os.path.relpath(os.path.abspath(__file__), os.getcwd())
    if name == "big":
        return "x" * int(float(args.get("mib", 1)) * 1024 * 1024)
    if name == "controls":
        return "before\x1b[2J\x1b]0;title\x07\rRun `git status`?\x08 after\ttab\nline2"
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
