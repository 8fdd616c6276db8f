// The JSON ctx prints with --json, and defensive parsers for it. Shapes follow
// ctx's README (result contract, error object) and what ctx def/refs/status
// print; fields are only ever added there, so unknown fields are ignored and
// a missing required field is an error naming it. No `vscode` import.

/** FindResult is one result of `ctx find --json`. Lines are 1-based and inclusive. */
export interface FindResult {
  /** path is relative to the indexed root, with forward slashes. */
  path: string;
  /** startLine is the first line, 1-based. */
  startLine: number;
  /** endLine is the last line, 1-based and inclusive. */
  endLine: number;
  score: number;
  language: string;
  kind: string;
  symbol: string;
  summary: string;
  /** code is present with --full or --mode. */
  code?: string;
  /** stale is set when the file changed after the index generation that answered. */
  stale: boolean;
}

/** FindAnswer is the whole `ctx find --json` object. */
export interface FindAnswer {
  query: string;
  results: FindResult[];
  /** confidence is "high", "medium" or "low" ("" when absent). */
  confidence: string;
  fresh: boolean;
  /** staleReason is stats.stale: why the answer may miss changes ("" when fresh). */
  staleReason: string;
  /** partial is set when a deadline or a first index still running cut the answer short. */
  partial: boolean;
}

/** Definition is one answer of `ctx def --json`. Lines are 1-based and inclusive. */
export interface Definition {
  path: string;
  startLine: number;
  endLine: number;
  language: string;
  kind: string;
  symbol: string;
  summary: string;
  /** confidence is in [0, 1]; 1 only when nothing else fits. */
  confidence: number;
  /** resolution says how it was found: exact, unique, overload, ambiguous, loose, ... */
  resolution: string;
}

/** DefAnswer is the whole `ctx def --json` object. */
export interface DefAnswer {
  symbol: string;
  definitions: Definition[];
}

/** Reference is one line of `ctx refs --json`. */
export interface Reference {
  path: string;
  /** line is 1-based. */
  line: number;
  /** column is the 1-based byte offset of the name in the line (UTF-8), 0 when absent. */
  column: number;
  /** text is the line, trimmed. */
  text: string;
  /** kind is call, import, definition or reference. */
  kind: string;
  /** enclosing is the definition that holds the line ("" at top level). */
  enclosing: string;
  confidence: number;
}

/** RefsAnswer is the whole `ctx refs --json` object. */
export interface RefsAnswer {
  symbol: string;
  references: Reference[];
}

/** Status is the part of `ctx status --json` the status bar shows. */
export interface Status {
  root: string;
  files: number;
  chunks: number;
  /** sourceBytes is the indexed files' total size, in bytes. */
  sourceBytes: number;
  /** indexBytes is the index's size on disk, in bytes. */
  indexBytes: number;
  /** lastIndexed is an RFC 3339 time ("" before the first run finished). */
  lastIndexed: string;
  generation: number;
  /** stale: the index was built by another ctx build, schema or model. */
  stale: boolean;
  /** incomplete: the last run did not finish (or the first is still running). */
  incomplete: boolean;
  /** indexing: a run is writing the index now. */
  indexing: boolean;
  /** changed, added, deleted count files on disk that differ from the index. */
  changed: number;
  added: number;
  deleted: number;
  /** watching is set when a watcher (ctx watch, mcp, serve) keeps the index fresh. */
  watching: boolean;
  /** watchPending counts changed paths the watcher has not indexed yet. */
  watchPending: number;
}

/** Progress is a first index run's progress, from an `indexing` or `partial` error. */
export interface Progress {
  filesDone: number;
  filesTotal: number;
  /** percent is 0 to 100. */
  percent: number;
  /** etaSeconds is the time left at the rate so far, in seconds (0 when unknown). */
  etaSeconds: number;
}

/** Failure is ctx's error object: `{"error": {"code", "message", "fix"}}`. */
export interface Failure {
  code: string;
  message: string;
  /** fix is the command or setting that fixes it ("" when none). */
  fix: string;
  progress?: Progress;
}

/** ParseError is output that is not the JSON ctx promises. */
export class ParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ParseError";
  }
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** parseObject parses text as one JSON object, or throws a [ParseError] quoting its start. */
export function parseObject(text: string, what: string): Obj {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ParseError(`${what}: output is not JSON (${(e as Error).message}): ${quote(text)}`);
  }
  if (!isObj(v)) {
    throw new ParseError(`${what}: output is not a JSON object: ${quote(text)}`);
  }
  return v;
}

function quote(text: string): string {
  const t = text.trim();
  if (t === "") {
    return "(empty)";
  }
  return JSON.stringify(t.length > 200 ? t.slice(0, 200) + "…" : t);
}

function str(o: Obj, key: string, what: string, required = false): string {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) throw new ParseError(`${what}: missing field "${key}"`);
    return "";
  }
  if (typeof v !== "string") throw new ParseError(`${what}: field "${key}" is not a string`);
  return v;
}

function num(o: Obj, key: string, what: string, required = false): number {
  const v = o[key];
  if (v === undefined || v === null) {
    if (required) throw new ParseError(`${what}: missing field "${key}"`);
    return 0;
  }
  if (typeof v !== "number" || !Number.isFinite(v)) throw new ParseError(`${what}: field "${key}" is not a number`);
  return v;
}

function line(o: Obj, key: string, what: string): number {
  const v = num(o, key, what, true);
  if (!Number.isInteger(v) || v < 1) throw new ParseError(`${what}: field "${key}" is not a 1-based line (${v})`);
  return v;
}

function bool(o: Obj, key: string): boolean {
  return o[key] === true;
}

function arr(o: Obj, key: string, what: string): Obj[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new ParseError(`${what}: field "${key}" is not an array`);
  return v.map((x, i) => {
    if (!isObj(x)) throw new ParseError(`${what}: ${key}[${i}] is not an object`);
    return x;
  });
}

function span(o: Obj, what: string): { startLine: number; endLine: number } {
  const startLine = line(o, "start_line", what);
  const endLine = line(o, "end_line", what);
  if (endLine < startLine) throw new ParseError(`${what}: end_line ${endLine} is before start_line ${startLine}`);
  return { startLine, endLine };
}

/** failureOf returns the error object of ctx's output, or undefined when it holds none. */
export function failureOf(o: Obj): Failure | undefined {
  const e = o["error"];
  if (!isObj(e)) return undefined;
  const what = "ctx error";
  const f: Failure = {
    code: str(e, "code", what) || "internal",
    message: str(e, "message", what) || "ctx failed without a message",
    fix: str(e, "fix", what),
  };
  if (isObj(e["progress"])) {
    const p = e["progress"];
    f.progress = {
      filesDone: num(p, "files_done", what),
      filesTotal: num(p, "files_total", what),
      percent: num(p, "percent", what),
      etaSeconds: num(p, "eta_s", what),
    };
  }
  return f;
}

/** parseFind reads `ctx find --json`. */
export function parseFind(o: Obj): FindAnswer {
  const what = "ctx find";
  const results = arr(o, "results", what).map((r, i) => {
    const w = `${what}: results[${i}]`;
    return {
      path: str(r, "path", w, true),
      ...span(r, w),
      score: num(r, "score", w),
      language: str(r, "language", w),
      kind: str(r, "kind", w),
      symbol: str(r, "symbol", w),
      summary: str(r, "summary", w),
      code: typeof r["code"] === "string" ? r["code"] : undefined,
      stale: r["stale"] === true,
    };
  });
  if (!Array.isArray(o["results"])) throw new ParseError(`${what}: missing field "results"`);
  const stats = isObj(o["stats"]) ? o["stats"] : {};
  return {
    query: str(o, "query", what),
    results,
    confidence: str(o, "confidence", what),
    fresh: stats["fresh"] !== false,
    staleReason: typeof stats["stale"] === "string" ? stats["stale"] : "",
    partial: bool(stats, "partial"),
  };
}

/** parseDef reads `ctx def --json`. */
export function parseDef(o: Obj): DefAnswer {
  const what = "ctx def";
  if (!Array.isArray(o["definitions"])) throw new ParseError(`${what}: missing field "definitions"`);
  return {
    symbol: str(o, "symbol", what),
    definitions: arr(o, "definitions", what).map((d, i) => {
      const w = `${what}: definitions[${i}]`;
      return {
        path: str(d, "path", w, true),
        ...span(d, w),
        language: str(d, "language", w),
        kind: str(d, "kind", w),
        symbol: str(d, "symbol", w),
        summary: str(d, "summary", w),
        confidence: num(d, "confidence", w),
        resolution: str(d, "resolution", w),
      };
    }),
  };
}

/** parseRefs reads `ctx refs --json`. */
export function parseRefs(o: Obj): RefsAnswer {
  const what = "ctx refs";
  if (!Array.isArray(o["references"])) throw new ParseError(`${what}: missing field "references"`);
  return {
    symbol: str(o, "symbol", what),
    references: arr(o, "references", what).map((r, i) => {
      const w = `${what}: references[${i}]`;
      const column = num(r, "column", w);
      return {
        path: str(r, "path", w, true),
        line: line(r, "line", w),
        column: Number.isInteger(column) && column >= 1 ? column : 0,
        text: str(r, "text", w),
        kind: str(r, "kind", w),
        enclosing: str(r, "enclosing", w),
        confidence: num(r, "confidence", w),
      };
    }),
  };
}

/** parseStatus reads `ctx status --json`. */
export function parseStatus(o: Obj): Status {
  const what = "ctx status";
  const watch = isObj(o["watch"]) ? o["watch"] : undefined;
  return {
    root: str(o, "root", what, true),
    files: num(o, "files", what, true),
    chunks: num(o, "chunks", what),
    sourceBytes: num(o, "source_bytes", what),
    indexBytes: num(o, "index_bytes", what),
    lastIndexed: str(o, "last_indexed", what),
    generation: num(o, "generation", what),
    stale: bool(o, "stale"),
    incomplete: bool(o, "incomplete"),
    indexing: bool(o, "indexing"),
    changed: num(o, "changed", what),
    added: num(o, "added", what),
    deleted: num(o, "deleted", what),
    watching: watch !== undefined,
    watchPending: watch ? num(watch, "pending", what) : 0,
  };
}
