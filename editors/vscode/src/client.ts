// The ctx commands the extension runs, with their arguments, exit codes and
// JSON mapped to answers or a [CtxError]. No `vscode` import.

import * as fs from "node:fs";
import { run, RunResult, SpawnError } from "./run";
import {
  DefAnswer,
  Failure,
  failureOf,
  FindAnswer,
  parseDef,
  parseFind,
  parseObject,
  ParseError,
  parseRefs,
  parseStatus,
  Progress,
  RefsAnswer,
  Status,
} from "./protocol";

/** EXIT_NOT_INDEXED is ctx's exit code when the index must be built or finished first. */
export const EXIT_NOT_INDEXED = 4;

/**
 * CtxError is a ctx call that did not answer. code is ctx's error code
 * (not_indexed, stale, indexing, ...) or one of the extension's own:
 * missing_binary, not_executable, timeout, canceled, output_too_large,
 * bad_output, failed.
 */
export class CtxError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** fix is the command or setting that fixes it ("" when none). */
    readonly fix: string,
    /** exitCode is ctx's exit code (null when it did not exit on its own or never started). */
    readonly exitCode: number | null,
    /** stderr is the tail of ctx's standard error, for an output channel. */
    readonly stderr = "",
    readonly progress?: Progress,
  ) {
    super(message);
    this.name = "CtxError";
  }

  /** notIndexed is exit code 4: the index must be built or finished before ctx can answer. */
  get notIndexed(): boolean {
    return this.exitCode === EXIT_NOT_INDEXED;
  }
}

/** Mode is the setting ctx.mode: "default" runs find without --mode. */
export type Mode = "default" | "quick" | "balanced" | "deep";

/** ClientOptions configures a [Client]. */
export interface ClientOptions {
  /** bin is the ctx executable (setting ctx.path): a name on PATH or a path. */
  bin: string;
  /** root is the workspace folder: the process's cwd and its --repo. */
  root: string;
  /** env replaces the environment of ctx processes when set. */
  env?: NodeJS.ProcessEnv;
  /**
   * timeoutMs bounds each call but find and index (default
   * [DEFAULT_TIMEOUT_MS]). find is bounded by ctx's own request deadline
   * (CTX_REQUEST_TIMEOUT) except for the first index it builds, which a
   * timeout here would interrupt; only the signal stops those two.
   */
  timeoutMs?: number;
  /** log receives each command line and, after it ends, its exit and stderr. */
  log?: (line: string) => void;
}

/** DEFAULT_TIMEOUT_MS bounds a status, def, refs or setup call. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** FindOptions are the flags of a search. */
export interface FindOptions {
  /** limit is --limit, the number of results (1 to 200). */
  limit?: number;
  mode?: Mode;
}

/** Client runs ctx for one workspace folder. */
export class Client {
  constructor(readonly opts: ClientOptions) {}

  /**
   * find runs `ctx find --json QUERY`, with no timeout: the first find on an
   * unindexed root builds its index first, and ctx bounds the answer itself.
   */
  async find(query: string, fo: FindOptions = {}, signal?: AbortSignal): Promise<FindAnswer> {
    const args = ["find", "--json"];
    if (fo.limit !== undefined) {
      args.push("--limit", String(Math.max(1, Math.min(200, Math.floor(fo.limit)))));
    }
    if (fo.mode && fo.mode !== "default") {
      args.push("--mode", fo.mode);
    }
    // "--" keeps a query that starts with "-" from being read as a flag.
    args.push("--", query);
    return shaped(parseFind, await this.json(args, "ctx find", signal, 0));
  }

  /** def runs `ctx def --json NAME`. */
  async def(name: string, signal?: AbortSignal): Promise<DefAnswer> {
    return shaped(parseDef, await this.json(["def", "--json", "--", name], "ctx def", signal));
  }

  /** refs runs `ctx refs --json NAME`. */
  async refs(name: string, signal?: AbortSignal): Promise<RefsAnswer> {
    return shaped(parseRefs, await this.json(["refs", "--json", "--", name], "ctx refs", signal));
  }

  /** status runs `ctx status --json`; an unindexed root is a [CtxError] with exit code 4. */
  async status(signal?: AbortSignal): Promise<Status> {
    return shaped(parseStatus, await this.json(["status", "--json"], "ctx status", signal));
  }

  /** index runs `ctx index --json`, with no timeout: only the signal stops it. */
  async index(signal?: AbortSignal): Promise<void> {
    await this.json(["index", "--json"], "ctx index", signal, 0);
  }

  /**
   * setup runs `ctx setup vscode` in the workspace folder, with --print to
   * show what it would write. It passes no --repo, so the MCP server it
   * configures serves the folder VS Code starts it in (${workspaceFolder})
   * and the shared file names no machine's path. It returns ctx's output.
   */
  async setup(print: boolean, signal?: AbortSignal): Promise<{ stdout: string; stderr: string }> {
    const args = ["setup", "vscode"];
    if (print) args.push("--print");
    const r = await this.exec(args, signal, this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, false);
    if (r.code !== 0) {
      throw this.failed("ctx setup", r, undefined);
    }
    return { stdout: r.stdout, stderr: r.stderr };
  }

  private async json(args: string[], what: string, signal?: AbortSignal, timeoutMs?: number) {
    const r = await this.exec(args, signal, timeoutMs ?? this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, true);
    let o: Record<string, unknown> | undefined;
    let parseErr: ParseError | undefined;
    try {
      o = parseObject(r.stdout, what);
    } catch (e) {
      parseErr = e as ParseError;
    }
    const failure = o ? failureOf(o) : undefined;
    if (r.code !== 0 || failure) {
      throw this.failed(what, r, failure);
    }
    if (parseErr) {
      throw new CtxError("bad_output", parseErr.message, "", r.code, r.stderr);
    }
    return o!;
  }

  private async exec(args: string[], signal: AbortSignal | undefined, timeoutMs: number, withRepo: boolean): Promise<RunResult> {
    const full = withRepo ? [...args.slice(0, 1), "--repo", this.opts.root, ...args.slice(1)] : args;
    const log = this.opts.log;
    log?.(`$ ${[this.opts.bin, ...full].map(shellWord).join(" ")}`);
    let r: RunResult;
    try {
      r = await run({ bin: this.opts.bin, args: full, cwd: this.opts.root, env: this.opts.env, timeoutMs, signal });
    } catch (e) {
      log?.(String(e instanceof Error ? e.message : e));
      throw spawnFailure(this.opts.bin, this.opts.root, e);
    }
    if (log) {
      if (r.stderr.trim() !== "") log(r.stderr.trimEnd());
      log(`(exit ${r.code ?? r.signal}${r.timedOut ? ", timed out" : ""}${r.canceled ? ", canceled" : ""})`);
    }
    if (r.canceled) {
      throw new CtxError("canceled", `${this.opts.bin} ${args[0]} was canceled`, "", null, r.stderr);
    }
    if (r.timedOut) {
      throw new CtxError(
        "timeout",
        `${this.opts.bin} ${args[0]} did not finish within ${Math.round(timeoutMs / 1000)} s`,
        "",
        null,
        r.stderr,
      );
    }
    if (r.overflow) {
      throw new CtxError("output_too_large", `${this.opts.bin} ${args[0]} printed more output than the extension reads`, "", null, r.stderr);
    }
    return r;
  }

  private failed(what: string, r: RunResult, f: Failure | undefined): CtxError {
    if (f) {
      return new CtxError(f.code, f.message, f.fix, r.code, r.stderr, f.progress);
    }
    const tail = lastLines(r.stderr, 5);
    const how = r.code === null ? `was killed by ${r.signal}` : `exited with code ${r.code}`;
    return new CtxError("failed", tail ? `${what} ${how}: ${tail}` : `${what} ${how}`, "", r.code, r.stderr);
  }
}

/** shaped applies a parser, turning a [ParseError] into a bad_output [CtxError]. */
function shaped<T>(parse: (o: Record<string, unknown>) => T, o: Record<string, unknown>): T {
  try {
    return parse(o);
  } catch (e) {
    if (e instanceof ParseError) throw new CtxError("bad_output", e.message, "", 0);
    throw e;
  }
}

function spawnFailure(bin: string, root: string, e: unknown): CtxError {
  if (e instanceof SpawnError) {
    // Node reports a missing cwd as ENOENT too.
    if (e.errno === "ENOENT" && !fs.existsSync(root)) {
      return new CtxError("not_found", `the folder ${root} does not exist`, "", null);
    }
    if (e.errno === "ENOENT") {
      return new CtxError(
        "missing_binary",
        `the ctx binary "${bin}" was not found`,
        "set ctx.path to the ctx executable, or put ctx on PATH (go install ./cmd/ctx)",
        null,
      );
    }
    if (e.errno === "EACCES") {
      return new CtxError("not_executable", `the ctx binary "${bin}" cannot be run (permission denied)`, "set ctx.path to an executable ctx", null);
    }
    return new CtxError("failed", e.message, "", null);
  }
  throw e;
}

/** shellWord quotes a word for the log (display only: nothing runs through a shell). */
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

function lastLines(s: string, n: number): string {
  return s.trim().split("\n").slice(-n).join("\n");
}
