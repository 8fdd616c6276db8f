#!/usr/bin/env node
// client.mjs drives ctx's MCP server with the official TypeScript SDK
// client, as agents' clients do, and checks the answers about the fixture
// repository (testdata/repo.txtar, answers in testdata/expect.json).
//
//   node client.mjs stdio CTX_BINARY REPO CACHE_DIR   spawns `ctx mcp --repo REPO`
//   node client.mjs http  URL        REPO [CACHE_DIR] connects to `ctx serve` at URL (…/mcp)
//
// REPO must already be indexed (into CACHE_DIR). In http mode the server
// was started with its own cache dir, and $CTX_MCP_TOKEN, when set, is sent
// as the bearer token. internal/mcpserver/e2e_ts_test.go runs both modes.
//
// It prints a JSON summary on stdout and exits 0, or prints
// "e2e: FAIL (...): reason" on stderr and exits 1.

import { readFile } from "node:fs/promises";
import path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// defaultTools is `ctx mcp`'s default tool set.
const defaultTools = [
  "codebase_retrieval",
  "get_symbol_definition",
  "find_references",
  "symbol_graph",
  "list_files",
  "index_status",
];

// maxPages bounds the cursor walk, so a cursor that never ends fails
// instead of looping.
const maxPages = 50;

class CheckError extends Error {}

// check fails the run with msg unless cond holds.
function check(cond, msg) {
  if (!cond) throw new CheckError(msg);
}

function usage() {
  console.error("usage: node client.mjs stdio CTX_BINARY REPO CACHE_DIR\n       node client.mjs http URL REPO [CACHE_DIR]");
  process.exit(2);
}

// segKey names a segment by its file and lines.
const segKey = (s) => `${s.path}:${s.start_line}-${s.end_line}`;

// covers reports whether a segment or definition spans all of want's lines.
const covers = (s, want) => s.path === want.path && s.start_line <= want.start_line && s.end_line >= want.end_line;

const textOf = (res) => (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");

// call calls a tool, timing it, and fails on an isError result.
async function call(client, name, args) {
  const t0 = performance.now();
  const res = await client.callTool({ name, arguments: args });
  const ms = performance.now() - t0;
  check(!res.isError, `${name} ${JSON.stringify(args)} returned isError: ${textOf(res)}`);
  check(res.structuredContent && typeof res.structuredContent === "object", `${name} returned no structuredContent`);
  return { res, out: res.structuredContent, text: textOf(res), ms };
}

async function connect(mode, target, repo, cacheDir) {
  const client = new Client({ name: "ctx-e2e", version: "1.0.0" });
  let transport;
  if (mode === "stdio") {
    transport = new StdioClientTransport({
      command: target,
      args: ["mcp", "--repo", repo],
      // Only the SDK's safe defaults (PATH, HOME, ...) plus the cache: no
      // CTX_* setting of the caller leaks into the server.
      env: { ...getDefaultEnvironment(), CTX_CACHE_DIR: cacheDir },
      stderr: "inherit",
    });
  } else {
    const token = process.env.CTX_MCP_TOKEN;
    transport = new StreamableHTTPClientTransport(new URL(target), {
      requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
    });
  }
  const t0 = performance.now();
  await client.connect(transport);
  return { client, transport, connectMS: performance.now() - t0 };
}

async function listAllTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

// checkTools requires the default tools, and a description and an object
// input schema on every tool offered. (listTools itself already failed
// if any tool's schemas do not parse as the SDK's Tool type.)
function checkTools(tools) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of defaultTools) {
    check(byName.has(name), `tools/list lacks ${name}; got ${[...byName.keys()].join(", ")}`);
  }
  for (const t of tools) {
    check(typeof t.description === "string" && t.description.trim().length > 0, `${t.name} has no description`);
    check(t.inputSchema && t.inputSchema.type === "object", `${t.name} inputSchema is not an object schema: ${JSON.stringify(t.inputSchema)}`);
  }
  const cr = byName.get("codebase_retrieval");
  check(cr.inputSchema.properties?.information_request, "codebase_retrieval inputSchema has no information_request property");
  // The SDK validates structuredContent against outputSchema on every
  // call below, so a schema mismatch fails the run there.
  check(cr.outputSchema && cr.outputSchema.type === "object", "codebase_retrieval has no outputSchema");
}

// checkRetrieval asks the fixture question and requires the known answer.
async function checkRetrieval(client, spec) {
  const { out, text, ms } = await call(client, "codebase_retrieval", spec.arguments);
  check(Array.isArray(out.segments) && out.segments.length > 0, `codebase_retrieval found nothing: ${text}`);
  const hit = out.segments.find((s) => covers(s, spec.want));
  check(
    hit,
    `codebase_retrieval: no segment covers ${segKey(spec.want)}; got ${out.segments.map(segKey).join(", ")}`,
  );
  check(text.includes(segKey(hit)), `codebase_retrieval text does not mention ${segKey(hit)}:\n${text}`);
  check(typeof hit.code === "string" && hit.code.length > 0, `segment ${segKey(hit)} has no code`);
  check(hit.score_components && Object.keys(hit.score_components).length > 0, `segment ${segKey(hit)} has no score_components`);
  check(out.tokens > 0 && out.tokens <= out.max_tokens, `tokens ${out.tokens} outside (0, max_tokens ${out.max_tokens}]`);
  check(out.truncated === false, `a default-budget answer on a small repository was truncated (tokens ${out.tokens})`);
  check(["high", "medium", "low"].includes(out.confidence), `confidence ${JSON.stringify(out.confidence)}`);
  check(out.freshness?.index_generation > 0 && out.freshness.fresh === true, `freshness ${JSON.stringify(out.freshness)}`);
  check(typeof out.stats?.server_ms === "number", "stats.server_ms missing");
  return {
    hit: segKey(hit),
    rank: out.segments.indexOf(hit) + 1,
    segments: out.segments.length,
    tokens: out.tokens,
    confidence: out.confidence,
    server_ms: out.stats.server_ms,
    client_ms: round(ms),
  };
}

// checkPaging forces truncation with a small budget, walks the cursor to
// the end, and requires the pages to partition one unpaged answer.
async function checkPaging(client, spec) {
  const args = spec.arguments;
  const pages = [];
  let cursor;
  do {
    const { out, text } = await call(client, "codebase_retrieval", cursor ? { ...args, cursor } : args);
    check(out.segments.length > 0, `page ${pages.length + 1} is empty: ${text}`);
    check(out.tokens <= out.max_tokens, `page ${pages.length + 1}: tokens ${out.tokens} > max_tokens ${out.max_tokens}`);
    if (out.truncated) {
      check(typeof out.cursor === "string" && out.cursor !== "", `page ${pages.length + 1} is truncated without a cursor`);
      check(out.remaining > 0, `page ${pages.length + 1} is truncated with remaining ${out.remaining}`);
      check(text.includes(out.cursor), `page ${pages.length + 1} text does not give its cursor`);
    } else {
      check(!out.cursor, `the last page has a cursor ${out.cursor}`);
    }
    pages.push(out);
    cursor = out.truncated ? out.cursor : undefined;
    check(pages.length <= maxPages, `more than ${maxPages} pages: the cursor does not end`);
  } while (cursor);

  check(pages.length >= 2, `max_tokens ${args.max_tokens} did not truncate (${pages[0].tokens} tokens, ${pages[0].segments.length} segments)`);
  const seen = new Map();
  pages.forEach((p, i) => {
    for (const s of p.segments) {
      const k = `${s.path}:${s.start_line}`;
      check(!seen.has(k), `segment ${k} is on page ${seen.get(k)} and again on page ${i + 1}`);
      seen.set(k, i + 1);
    }
  });
  const total = pages[0].segments.length + pages[0].remaining;
  check(seen.size === total, `pages hold ${seen.size} segments; the first page promised ${total}`);

  // The same request without a page limit returns the same segments in
  // the same order (keyed by start line: a segment clipped to a small
  // page ends early).
  const { out: whole } = await call(client, "codebase_retrieval", { ...args, max_tokens: 20000 });
  check(!whole.truncated, "the unpaged request was truncated");
  const want = whole.segments.map((s) => `${s.path}:${s.start_line}`);
  const got = [...seen.keys()];
  check(
    JSON.stringify(got) === JSON.stringify(want),
    `paged segments differ from the unpaged answer:\n  paged   ${got.join(", ")}\n  unpaged ${want.join(", ")}`,
  );
  return { pages: pages.length, segments: seen.size, tokens: pages.map((p) => p.tokens), max_tokens: pages[0].max_tokens };
}

async function checkDefinition(client, spec) {
  const { out, text, ms } = await call(client, "get_symbol_definition", spec.arguments);
  check(Array.isArray(out.definitions) && out.definitions.length > 0, `get_symbol_definition found nothing: ${text}`);
  const d = out.definitions[0];
  check(covers(d, spec.want), `get_symbol_definition ${spec.arguments.symbol}: best is ${segKey(d)}, want one covering ${segKey(spec.want)}`);
  check(text.includes(segKey(d)), `get_symbol_definition text does not mention ${segKey(d)}`);
  check(d.code?.includes(spec.arguments.symbol), `definition code does not contain ${spec.arguments.symbol}`);
  return { symbol: spec.arguments.symbol, best: segKey(d), definitions: out.definitions.length, server_ms: out.server_ms, client_ms: round(ms) };
}

// checkOutsideRoot requires a repo_path above the server root to be a
// tool error (isError), not a protocol error and not an answer.
async function checkOutsideRoot(client, repo) {
  const outside = path.dirname(repo);
  const res = await client.callTool({
    name: "codebase_retrieval",
    arguments: { information_request: "token bucket", repo_path: outside },
  });
  const text = textOf(res);
  check(res.isError === true, `repo_path ${outside} outside the root did not return isError: ${text.slice(0, 300)}`);
  check(/outside the server root/.test(text), `the outside-root error does not say why: ${text}`);
  return { repo_path: outside, message: text };
}

const round = (ms) => Math.round(ms * 10) / 10;

async function main() {
  const [mode, target, repoArg, cacheArg] = process.argv.slice(2);
  if (!["stdio", "http"].includes(mode) || !target || !repoArg || (mode === "stdio" && !cacheArg)) usage();
  const repo = path.resolve(repoArg);
  const cacheDir = cacheArg ? path.resolve(cacheArg) : undefined;
  const expect = JSON.parse(await readFile(new URL("./testdata/expect.json", import.meta.url), "utf8"));

  const t0 = performance.now();
  const { client, transport, connectMS } = await connect(mode, target, repo, cacheDir);
  try {
    const server = client.getServerVersion();
    check(server?.name === "ctx", `initialize: server name ${JSON.stringify(server)}`);
    check(client.getServerCapabilities()?.tools, "initialize: the server does not offer tools");
    check((client.getInstructions() ?? "").includes("codebase_retrieval"), "initialize: instructions do not mention codebase_retrieval");

    const tools = await listAllTools(client);
    checkTools(tools);

    const summary = {
      transport: mode,
      server,
      connect_ms: round(connectMS),
      tools: tools.map((t) => t.name),
      retrieval: await checkRetrieval(client, expect.retrieval),
      paging: await checkPaging(client, expect.paging),
      definition: await checkDefinition(client, expect.definition),
      outside_root: await checkOutsideRoot(client, repo),
    };
    if (mode === "http") {
      // Ends the session with DELETE, as a well-behaved client does.
      await transport.terminateSession();
    }
    summary.elapsed_ms = round(performance.now() - t0);
    console.log(JSON.stringify(summary, null, 2));
  } finally {
    await client.close();
  }
}

main().catch((err) => {
  const why = err instanceof CheckError ? err.message : err?.stack ?? String(err);
  console.error(`e2e: FAIL (${process.argv[2]}): ${why}`);
  process.exit(1);
});
