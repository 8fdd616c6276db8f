// The fixture repository and a hermetic environment for running a real ctx
// (CTX_BIN) on it. editors/vscode/extension_test.go sets CTX_BIN to a ctx it
// has just built.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** ctxBin is the ctx binary under test; a missing CTX_BIN fails, never skips. */
export function ctxBin(): string {
  const bin = process.env.CTX_BIN;
  if (!bin) {
    throw new Error("CTX_BIN is not set: build ctx (go build -o bin/ctx ./cmd/ctx) and run CTX_BIN=$PWD/bin/ctx npm test --prefix editors/vscode");
  }
  return path.resolve(bin);
}

/** Fixture is a copy of test/testdata/repo in a temporary directory, with its own cache. */
export interface Fixture {
  /** dir holds repo and cache; remove it when done. */
  dir: string;
  repo: string;
  /** env is this process's environment without CTX_* settings, with CTX_CACHE_DIR in dir. */
  env: NodeJS.ProcessEnv;
}

/** fixture copies the fixture repository to a new temporary directory. */
export function fixture(): Fixture {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ctx-vscode-test-"));
  const repo = path.join(dir, "repo");
  // The compiled test runs from out/test; the fixture stays in test/testdata.
  fs.cpSync(path.join(__dirname, "..", "..", "test", "testdata", "repo"), repo, { recursive: true });
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("CTX_")) env[k] = v;
  }
  env.CTX_CACHE_DIR = path.join(dir, "cache");
  return { dir, repo, env };
}

/** lineOf is the 0-based index of the first line of file (in repo) that contains text. */
export function lineOf(repo: string, file: string, text: string): number {
  const lines = fs.readFileSync(path.join(repo, file), "utf8").split("\n");
  const i = lines.findIndex((l) => l.includes(text));
  if (i < 0) throw new Error(`${file} has no line with ${JSON.stringify(text)}`);
  return i;
}

/** lineText is line (0-based) of file in repo. */
export function lineText(repo: string, file: string, line: number): string {
  return fs.readFileSync(path.join(repo, file), "utf8").split("\n")[line];
}
