// The logic modules against a real ctx binary (CTX_BIN) on the fixture
// repository: process calls, JSON parsing, result mapping and error display,
// as the extension uses them. Tests in a describe run in order: the first
// ones see the repository before it is indexed.

import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Client, CtxError } from "../src/client";
import { errorMessage } from "../src/messages";
import { defLocation, diskLines, END_OF_LINE, findLocation, refLocation } from "../src/locations";
import { run } from "../src/run";
import { errorView, statusView } from "../src/statusview";
import { ctxBin, Fixture, fixture, lineOf, lineText } from "./fixture";

/** rejection awaits p and returns the [CtxError] it rejects with. */
async function rejection(p: Promise<unknown>): Promise<CtxError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof CtxError, `want a CtxError, got ${e}`);
    return e;
  }
  assert.fail("the call succeeded; want a CtxError");
}

/** alive reports whether a process with pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

describe("ctx on the fixture repository", () => {
  let fx: Fixture;
  let ctx: Client;
  const bin = ctxBin();

  before(() => {
    fx = fixture();
    ctx = new Client({ bin, root: fx.repo, env: fx.env, timeoutMs: 60_000 });
  });
  after(() => fs.rmSync(fx.dir, { recursive: true, force: true }));

  it("reports a repository with no index as exit 4 with ctx's fix, offering to index", async () => {
    const err = await rejection(ctx.status());
    assert.equal(err.exitCode, 4);
    assert.equal(err.code, "not_indexed");
    assert.equal(err.fix, "ctx index");
    assert.ok(err.notIndexed);

    const v = errorView(err);
    assert.equal(v.state, "not-indexed");
    assert.ok(v.offerIndex);
    assert.match(v.tooltip, /Fix: ctx index/);

    const m = errorMessage("status", err);
    assert.match(m.text, /has no index/);
    assert.match(m.text, /ctx index/);
    assert.deepEqual(m.actions, ["Index now"]);
    assert.equal(m.info, false);
  });

  it("gives def and refs the same exit-4 path before the index exists", async () => {
    for (const call of [() => ctx.def("Greet"), () => ctx.refs("Greet")]) {
      const err = await rejection(call());
      assert.equal(err.exitCode, 4);
      assert.equal(err.code, "not_indexed");
      assert.ok(errorMessage("def", err).actions.includes("Index now"));
    }
  });

  it("indexes, and then the status is fresh", async () => {
    await ctx.index();
    const st = await ctx.status();
    assert.equal(st.root, fs.realpathSync(fx.repo));
    assert.equal(st.files, 2);
    assert.ok(st.sourceBytes > 0, "source_bytes");
    assert.equal(st.indexing, false);
    const v = statusView(st);
    assert.equal(v.state, "fresh", v.tooltip);
    assert.equal(v.text, "$(check) ctx");
    assert.match(v.tooltip, /2 files/);
    assert.equal(v.offerIndex, false);
  });

  it("finds a function and maps it to its file and 0-based lines", async () => {
    const a = await ctx.find("Greet", { limit: 5 });
    assert.equal(a.query, "Greet");
    assert.ok(a.results.length > 0, "no results");
    const top = a.results[0];
    assert.equal(top.path, "greet/greet.go");
    assert.equal(top.symbol, "Greet");
    assert.equal(top.code, undefined, "no code without --mode");

    const loc = findLocation(fx.repo, top);
    assert.equal(loc.file, path.join(fx.repo, "greet", "greet.go"));
    // The chunk runs from the doc comment (1-based line 4) to the closing
    // brace (line 7): 0-based lines 3 to 6, the last to its end.
    const first = lineOf(fx.repo, "greet/greet.go", "// Greet returns");
    const last = lineOf(fx.repo, "greet/greet.go", 'return "hello " + name') + 1;
    assert.deepEqual(loc.range, { start: { line: first, character: 0 }, end: { line: last, character: END_OF_LINE } });
    assert.equal(first, 3);
  });

  it("passes the mode setting as --mode and the limit as --limit", async () => {
    const a = await ctx.find("open the connection to the order database", { limit: 1, mode: "quick" });
    assert.equal(a.results.length, 1);
    assert.equal(a.results[0].path, "store/store.py");
    assert.equal(typeof a.results[0].code, "string", "--mode packs each result's code");
  });

  it("maps a definition to its lines", async () => {
    const a = await ctx.def("connect_database");
    assert.equal(a.definitions.length, 1);
    const d = a.definitions[0];
    assert.equal(d.path, "store/store.py");
    const loc = defLocation(fx.repo, d);
    assert.equal(loc.file, path.join(fx.repo, "store", "store.py"));
    assert.equal(loc.range.start.line, lineOf(fx.repo, "store/store.py", "def connect_database"));
    assert.equal(loc.range.end.line, lineOf(fx.repo, "store/store.py", "return retry_with_backoff(lambda"));
  });

  it("returns no definitions, not an error, for an unknown name", async () => {
    const a = await ctx.def("NoSuchName");
    assert.deepEqual(a.definitions, []);
  });

  it("maps references to the name's UTF-16 range, past multi-byte characters", async () => {
    const a = await ctx.refs("Greet");
    const call = a.references.find((r) => r.kind === "call");
    assert.ok(call, `no call among ${JSON.stringify(a.references)}`);
    const line = lineOf(fx.repo, "greet/greet.go", "héllo");
    assert.equal(call.line, line + 1);
    const text = lineText(fx.repo, "greet/greet.go", line);
    // ctx counts bytes: é and ☃ take 2 and 3 bytes but one UTF-16 unit each.
    const want = text.indexOf("Greet(");
    assert.equal(call.column - 1, Buffer.byteLength(text.slice(0, want)));
    assert.notEqual(call.column - 1, want);

    const loc = await refLocation(fx.repo, call, "Greet", diskLines());
    assert.equal(loc.file, path.join(fx.repo, "greet", "greet.go"));
    assert.deepEqual(loc.range, { start: { line, character: want }, end: { line, character: want + "Greet".length } });

    const def = a.references.find((r) => r.kind === "definition");
    assert.ok(def);
    const dl = await refLocation(fx.repo, def, "Greet", diskLines());
    assert.equal(dl.range.start.line, lineOf(fx.repo, "greet/greet.go", "func Greet("));
    assert.equal(dl.range.start.character, "func ".length);
  });

  it("shows an edited repository as stale with the reason, and fresh after indexing", async () => {
    const file = path.join(fx.repo, "store", "store.py");
    fs.appendFileSync(file, "\n\ndef close_connection(conn):\n    conn.close()\n");
    // Move the time on, in case the edit lands in the same mtime tick.
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    const v = statusView(await ctx.status());
    assert.equal(v.state, "stale", v.tooltip);
    assert.match(v.tooltip, /1 changed, 0 added, 0 deleted/);
    assert.match(v.tooltip, /Fix: ctx index/);
    assert.ok(v.offerIndex);

    await ctx.index();
    assert.equal(statusView(await ctx.status()).state, "fresh");
  });

  it("runs ctx setup vscode: --print writes nothing, then it writes .vscode/mcp.json", async () => {
    const plan = await ctx.setup(true);
    assert.match(plan.stdout, /would create \.vscode\/mcp\.json/);
    assert.equal(fs.existsSync(path.join(fx.repo, ".vscode")), false);
    await ctx.setup(false);
    const mcp = JSON.parse(fs.readFileSync(path.join(fx.repo, ".vscode", "mcp.json"), "utf8"));
    assert.deepEqual(mcp.servers.ctx.args.slice(0, 1), ["mcp"]);
  });

  it("kills ctx when the call is canceled", async () => {
    // ctx watch runs until it is stopped.
    const ac = new AbortController();
    let started = false;
    const p = run({ bin, args: ["watch", "--repo", fx.repo], cwd: fx.repo, env: fx.env, signal: ac.signal });
    setTimeout(() => {
      started = true;
      ac.abort();
    }, 1000);
    const r = await p;
    assert.ok(started, "ctx watch exited before it was canceled");
    assert.ok(r.canceled);
    assert.ok(r.pid !== undefined && !alive(r.pid), `ctx watch (pid ${r.pid}) is still running`);

    const err = await rejection(ctx.find("Greet", {}, AbortSignal.abort()));
    assert.equal(err.code, "canceled");
    assert.equal(errorMessage("find", err).info, true);
  });

  it("kills ctx at the timeout", async () => {
    const r = await run({ bin, args: ["watch", "--repo", fx.repo], cwd: fx.repo, env: fx.env, timeoutMs: 500 });
    assert.ok(r.timedOut);
    assert.ok(r.pid !== undefined && !alive(r.pid));
  });

  it("bounds stdout", async () => {
    const r = await run({ bin, args: ["status", "--json", "--repo", fx.repo], cwd: fx.repo, env: fx.env, maxStdoutBytes: 10 });
    assert.ok(r.overflow);
    assert.ok(r.stdout.length <= 10);
  });

  it("shows ctx's usage error with its fix", async () => {
    const err = await rejection(new Client({ bin, root: fx.repo, env: fx.env }).find("x", { mode: "sideways" as never }));
    assert.equal(err.exitCode, 2);
    assert.ok(err.code === "usage" || err.code === "invalid_argument", err.code);
    assert.equal(err.notIndexed, false);
    assert.deepEqual(errorMessage("find", err).actions.filter((a) => a === "Index now"), []);
  });

  it("reports a folder that does not exist, not a missing binary", async () => {
    const missing = path.join(fx.dir, "gone");
    fs.mkdirSync(missing);
    const c = new Client({ bin, root: missing, env: fx.env });
    fs.rmdirSync(missing);
    const err = await rejection(c.status());
    assert.equal(err.code, "not_found", err.message);
    assert.match(err.message, /gone does not exist/);
  });
});

describe("a ctx that cannot run or answers badly", () => {
  let fx: Fixture;
  before(() => {
    fx = fixture();
  });
  after(() => fs.rmSync(fx.dir, { recursive: true, force: true }));

  /** script writes an executable shell script that stands in for ctx. */
  function script(name: string, body: string): string {
    const p = path.join(fx.dir, name);
    fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return p;
  }

  it("names a missing binary and the setting that fixes it", async () => {
    const bin = path.join(fx.dir, "no-such-ctx");
    const err = await rejection(new Client({ bin, root: fx.repo, env: fx.env }).status());
    assert.equal(err.code, "missing_binary");
    assert.match(err.message, /no-such-ctx" was not found/);
    assert.match(err.fix, /ctx\.path/);
    const m = errorMessage("status", err);
    assert.deepEqual(m.actions, ["Open settings"]);
    assert.match(m.text, /Fix: set ctx\.path/);
    assert.equal(errorView(err).state, "error");
  });

  it("names a binary that is not executable", async () => {
    const bin = path.join(fx.dir, "plain-file");
    fs.writeFileSync(bin, "not a program", { mode: 0o644 });
    const err = await rejection(new Client({ bin, root: fx.repo, env: fx.env }).status());
    assert.equal(err.code, "not_executable");
  });

  it("turns output that is not JSON into a clear error", async () => {
    const bin = script("garbage", "echo 'Segmentation fault (not json)'");
    const err = await rejection(new Client({ bin, root: fx.repo, env: fx.env }).find("Greet"));
    assert.equal(err.code, "bad_output");
    assert.match(err.message, /ctx find: output is not JSON/);
    assert.match(err.message, /Segmentation fault/);
  });

  it("turns JSON of the wrong shape into a clear error", async () => {
    const bin = script("shape", `echo '{"query": "q", "results": [{"path": "a.go", "start_line": "one", "end_line": 2}]}'`);
    const err = await rejection(new Client({ bin, root: fx.repo, env: fx.env }).find("q"));
    assert.equal(err.code, "bad_output");
    assert.match(err.message, /results\[0\]: field "start_line" is not a number/);
  });

  it("shows stderr when ctx fails without JSON", async () => {
    const bin = script("crash", "echo 'panic: something broke' >&2; exit 1");
    const err = await rejection(new Client({ bin, root: fx.repo, env: fx.env }).def("Greet"));
    assert.equal(err.code, "failed");
    assert.equal(err.exitCode, 1);
    assert.match(err.message, /ctx def exited with code 1: panic: something broke/);
    assert.ok(errorMessage("def", err).actions.includes("Show output"));
  });

  it("times out a status call, but lets a find (which may build the first index) run", async () => {
    const bin = script("slow", `sleep 1; echo '{"query": "q", "results": [], "root": "/r", "files": 0}'`);
    const c = new Client({ bin, root: fx.repo, env: fx.env, timeoutMs: 300 });
    const err = await rejection(c.status());
    assert.equal(err.code, "timeout");
    assert.match(err.message, /status did not finish within/);
    const a = await c.find("q");
    assert.deepEqual(a.results, []);
  });

  it("passes arguments without a shell", async () => {
    const out = path.join(fx.dir, "args.txt");
    const bin = script("echo-args", `printf '%s\\n' "$@" > '${out}'; echo '{"definitions": []}'`);
    const name = "$(touch pwned); `id`";
    await new Client({ bin, root: fx.repo, env: fx.env }).def(name);
    assert.deepEqual(fs.readFileSync(out, "utf8").trimEnd().split("\n"), ["def", "--repo", fx.repo, "--json", "--", name]);
    assert.equal(fs.existsSync(path.join(fx.repo, "pwned")), false);
  });
});
