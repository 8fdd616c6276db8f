// The parts of the logic modules that need no ctx process: JSON validation,
// column and range conversion, status bar text for states a small fixture
// cannot hold still (an index run in progress), error messages.

import { describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { CtxError } from "../src/client";
import { absPath, bareName, END_OF_LINE, lineSpan, resultItem, utf16Column } from "../src/locations";
import { errorMessage } from "../src/messages";
import { failureOf, parseDef, parseFind, parseObject, ParseError, parseRefs, parseStatus, Status } from "../src/protocol";
import { errorView, formatBytes, statusView } from "../src/statusview";

describe("protocol", () => {
  it("rejects output that is not a JSON object, quoting it", () => {
    assert.throws(() => parseObject("", "ctx find"), /ctx find: output is not JSON .*: \(empty\)/);
    assert.throws(() => parseObject("[1, 2]", "ctx find"), /not a JSON object: "\[1, 2\]"/);
    assert.throws(() => parseObject("x".repeat(500), "ctx find"), (e: Error) => e instanceof ParseError && e.message.length < 300);
  });

  it("validates find results and reads freshness from stats", () => {
    const a = parseFind(
      parseObject(
        JSON.stringify({
          query: "q",
          results: [{ path: "a/b.go", start_line: 3, end_line: 9, score: 0.5, language: "go", kind: "function", symbol: "F", summary: "func F()", stale: true, new_field: 1 }],
          confidence: "high",
          stats: { fresh: false, stale: "edits the watcher is still indexing", partial: true },
        }),
        "ctx find",
      ),
    );
    assert.deepEqual(a.results[0], { path: "a/b.go", startLine: 3, endLine: 9, score: 0.5, language: "go", kind: "function", symbol: "F", summary: "func F()", code: undefined, stale: true });
    assert.equal(a.fresh, false);
    assert.equal(a.staleReason, "edits the watcher is still indexing");
    assert.equal(a.partial, true);

    assert.throws(() => parseFind({ query: "q" }), /missing field "results"/);
    assert.throws(() => parseFind({ results: [{ start_line: 1, end_line: 1 }] }), /results\[0\]: missing field "path"/);
    assert.throws(() => parseFind({ results: [{ path: "a", start_line: 0, end_line: 1 }] }), /not a 1-based line/);
    assert.throws(() => parseFind({ results: [{ path: "a", start_line: 5, end_line: 4 }] }), /end_line 4 is before start_line 5/);
    assert.throws(() => parseFind({ results: ["a"] }), /results\[0\] is not an object/);
  });

  it("validates def and refs", () => {
    assert.throws(() => parseDef({ symbol: "x" }), /missing field "definitions"/);
    assert.throws(() => parseRefs({ references: [{ path: "a", line: "2" }] }), /field "line" is not a number/);
    const r = parseRefs({ references: [{ path: "a", line: 2, kind: "import" }] });
    assert.equal(r.references[0].column, 0, "a reference without a column");
  });

  it("reads ctx's error object with progress", () => {
    const f = failureOf({ error: { code: "indexing", message: "first index running", fix: "ask again shortly", progress: { files_done: 10, files_total: 40, percent: 25, eta_s: 3 } } });
    assert.deepEqual(f, { code: "indexing", message: "first index running", fix: "ask again shortly", progress: { filesDone: 10, filesTotal: 40, percent: 25, etaSeconds: 3 } });
    assert.equal(failureOf({ results: [] }), undefined);
    assert.equal(failureOf({ error: {} })?.code, "internal");
  });

  it("requires status's root and files", () => {
    assert.throws(() => parseStatus({ files: 1 }), /missing field "root"/);
  });
});

describe("locations", () => {
  it("maps 1-based inclusive lines to a 0-based range ending at the last line's end", () => {
    assert.deepEqual(lineSpan(1, 1), { start: { line: 0, character: 0 }, end: { line: 0, character: END_OF_LINE } });
    assert.deepEqual(lineSpan(120, 188), { start: { line: 119, character: 0 }, end: { line: 187, character: END_OF_LINE } });
  });

  it("converts 1-based byte columns to 0-based UTF-16 offsets", () => {
    assert.equal(utf16Column("func Greet()", 6), 5);
    assert.equal(utf16Column("é Greet", 4), 2); // é is 2 bytes, 1 unit
    assert.equal(utf16Column("☃ Greet", 5), 2); // ☃ is 3 bytes, 1 unit
    assert.equal(utf16Column("😀 Greet", 6), 3); // 😀 is 4 bytes, 2 units
    assert.equal(utf16Column("ab", 99), 2, "past the end: the end");
    assert.equal(utf16Column("", 1), 0);
  });

  it("joins result paths under the root and refuses ones that leave it", () => {
    const root = path.resolve("/work/repo");
    assert.equal(absPath(root, "a/b.go"), path.join(root, "a", "b.go"));
    assert.throws(() => absPath(root, "../etc/passwd"), /outside the folder/);
  });

  it("takes the bare name of a qualified symbol", () => {
    assert.equal(bareName("(*Server).Shutdown"), "Shutdown");
    assert.equal(bareName("ns::Type"), "Type");
    assert.equal(bareName("Greet"), "Greet");
  });

  it("labels a search result", () => {
    const r = { path: "a/b.go", startLine: 3, endLine: 9, score: 0.5, language: "go", kind: "function", symbol: "", summary: "func F()", stale: false };
    assert.deepEqual(resultItem(r), { label: "func F()", description: "a/b.go:3-9", tooltip: "func F()\nfunction, go\nscore 0.5" });
    assert.equal(resultItem({ ...r, symbol: "F", startLine: 9 }).description, "a/b.go:9");
  });
});

describe("status bar", () => {
  const base: Status = {
    root: "/r", files: 30, chunks: 90, sourceBytes: 4096, indexBytes: 1 << 20, lastIndexed: "0001-01-01T00:00:00Z", generation: 0,
    stale: false, incomplete: true, indexing: true, changed: 0, added: 90, deleted: 0, watching: false, watchPending: 0,
  };

  it("shows a first index run's progress from the files committed and still to add", () => {
    const v = statusView(base);
    assert.equal(v.state, "indexing");
    assert.equal(v.text, "$(sync~spin) ctx 25%");
    assert.match(v.tooltip, /30 files indexed, 90 to go/);
    assert.doesNotMatch(v.tooltip, /last indexed/);
  });

  it("prefers the progress ctx reports", () => {
    const v = statusView(base, { filesDone: 60, filesTotal: 120, percent: 50, etaSeconds: 7 });
    assert.equal(v.text, "$(sync~spin) ctx 50%");
    assert.match(v.tooltip, /about 7 s left/);
  });

  it("says why an index is stale and what fixes it", () => {
    const idle = { ...base, indexing: false, incomplete: false, added: 0, lastIndexed: "2026-01-02T03:04:05Z", generation: 4 };
    const model = statusView({ ...idle, stale: true });
    assert.equal(model.state, "stale");
    assert.match(model.tooltip, /another ctx build, schema or embedding model/);
    assert.match(model.tooltip, /last indexed 2026-01-02T03:04:05Z \(generation 4\)/);
    assert.match(statusView({ ...idle, incomplete: true }).tooltip, /did not finish/);
    const watched = statusView({ ...idle, changed: 2, watching: true });
    assert.equal(watched.state, "stale");
    assert.equal(watched.offerIndex, false, "the watcher is already on it");
    assert.match(watched.tooltip, /watcher is indexing them/);
  });

  it("shows an indexing error's progress", () => {
    const err = new CtxError("indexing", "a run is building the first index", "ask again shortly", 4, "", { filesDone: 1, filesTotal: 4, percent: 25, etaSeconds: 0 });
    assert.equal(errorView(err).text, "$(sync~spin) ctx 25%");
    const m = errorMessage("def", err);
    assert.equal(m.info, true);
    assert.deepEqual(m.actions, []);
    assert.match(m.text, /25% done: 1 of 4 files/);
  });

  it("tells a missing index from one to rebuild or finish", () => {
    const missing = errorView(new CtxError("not_indexed", "not indexed: /r has no index; run `ctx index`", "ctx index", 4));
    assert.equal(missing.state, "not-indexed");
    assert.equal(missing.text, "$(circle-slash) ctx: not indexed");
    const interrupted = errorView(new CtxError("interrupted", "the first index run stopped", "ctx index", 4));
    assert.equal(interrupted.state, "stale");
    assert.equal(interrupted.text, "$(warning) ctx interrupted");
    assert.ok(interrupted.offerIndex);
    assert.equal(errorView(new CtxError("index_corrupt", "damaged", "ctx index --rebuild", 1)).state, "error");
  });

  it("writes sizes with binary units", () => {
    assert.equal(formatBytes(512), "512 B");
    assert.equal(formatBytes(3.5 * 1024 * 1024), "3.5 MiB");
  });
});
