#!/usr/bin/env node
// A small MCP stdio server for the tandem-mcp tests, on the official TypeScript SDK, for what
// server-everything does not do on demand:
//   add-tool   registers a new tool `added` and sends notifications/tools/list_changed
//   flood      answers with `bytes` bytes of text (a server that floods)
//   pid        answers with its own pid (to find the process to kill)
//   spawn-child starts a `sleep` child in the same process group and answers with its pid
//   hang       never answers; first writes the file `marker`, so a test knows the call arrived
// With TANDEM_TEST_LINGER=1 it stays alive after its stdin closes (a badly behaved server), so
// only a signal stops it.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server(
  { name: "tandem-test-server", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);

const noArgs = { type: "object", properties: {} };
const tools = [
  { name: "add-tool", description: "Adds the tool `added`.", inputSchema: noArgs },
  {
    name: "flood",
    description: "Answers with `bytes` bytes of text.",
    inputSchema: { type: "object", properties: { bytes: { type: "number" } }, required: ["bytes"] },
  },
  { name: "pid", description: "Answers with the server's pid.", inputSchema: noArgs },
  { name: "spawn-child", description: "Starts a child process and answers with its pid.", inputSchema: noArgs },
  {
    name: "hang",
    description: "Writes the file `marker`, then never answers.",
    inputSchema: { type: "object", properties: { marker: { type: "string" } }, required: ["marker"] },
  },
];

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  const text = (t) => ({ content: [{ type: "text", text: t }] });
  switch (name) {
    case "add-tool":
      if (!tools.some((t) => t.name === "added")) {
        tools.push({ name: "added", description: "Added at run time.", inputSchema: noArgs });
        await server.sendToolListChanged();
      }
      return text("added the tool `added`");
    case "added":
      return text("the added tool works");
    case "flood":
      return text("y".repeat(Number(args?.bytes ?? 0)));
    case "pid":
      return text(String(process.pid));
    case "spawn-child": {
      const child = spawn("sleep", ["300"], { stdio: "ignore" });
      return text(String(child.pid));
    }
    case "hang":
      writeFileSync(String(args?.marker), "arrived");
      return new Promise(() => {});
    default:
      return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
  }
});

if (process.env.TANDEM_TEST_LINGER === "1") {
  setInterval(() => {}, 60_000);
}

process.stderr.write("tandem-test-server: ready\n");
await server.connect(new StdioServerTransport());
