// Mapping from ctx's locations (paths relative to the root, 1-based lines,
// 1-based UTF-8 byte columns) to editor locations (absolute paths, 0-based
// lines, 0-based UTF-16 characters, as VS Code counts them). No `vscode` import.

import * as fs from "node:fs/promises";
import * as path from "node:path";
import { Definition, FindResult, Reference } from "./protocol";

/** Position is a 0-based line and a 0-based UTF-16 character offset, as in VS Code. */
export interface Position {
  line: number;
  character: number;
}

/** Range is a half-open range of [Position]s. */
export interface Range {
  start: Position;
  end: Position;
}

/** Location is a file by absolute path and a range in it. */
export interface Location {
  file: string;
  range: Range;
}

/**
 * END_OF_LINE is the character of a range that ends at its line's end; the
 * editor clamps it to the line's length (vscode TextDocument.validateRange).
 */
export const END_OF_LINE = Number.MAX_SAFE_INTEGER;

/**
 * absPath joins a root and a ctx result path (relative, forward slashes). It
 * throws on a path that leaves the root, which ctx never returns.
 */
export function absPath(root: string, rel: string): string {
  const p = path.resolve(root, ...rel.split("/"));
  const r = path.relative(root, p);
  if (r === ".." || r.startsWith(".." + path.sep) || path.isAbsolute(r)) {
    throw new Error(`ctx returned a path outside the folder: ${rel}`);
  }
  return p;
}

/**
 * lineSpan maps lines startLine..endLine (1-based, inclusive) to a range from
 * the start of the first line to the end of the last (0-based lines).
 */
export function lineSpan(startLine: number, endLine: number): Range {
  return {
    start: { line: startLine - 1, character: 0 },
    end: { line: endLine - 1, character: END_OF_LINE },
  };
}

/** findLocation maps a find result to the lines it spans. */
export function findLocation(root: string, r: FindResult): Location {
  return { file: absPath(root, r.path), range: lineSpan(r.startLine, r.endLine) };
}

/** defLocation maps a definition to the lines it spans. */
export function defLocation(root: string, d: Definition): Location {
  return { file: absPath(root, d.path), range: lineSpan(d.startLine, d.endLine) };
}

/**
 * utf16Column converts column, a 1-based byte offset into the UTF-8 encoding
 * of lineText, to a 0-based UTF-16 offset. A column past the line's end maps
 * to its end; one inside a character maps to that character's start.
 */
export function utf16Column(lineText: string, column: number): number {
  let bytes = 0;
  let units = 0;
  for (const ch of lineText) {
    if (bytes >= column - 1) {
      return units;
    }
    const cp = ch.codePointAt(0)!;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    units += ch.length;
  }
  return units;
}

/**
 * LineReader returns line (0-based) of file (absolute), or undefined when it
 * cannot be read. The editor passes one that prefers open documents.
 */
export type LineReader = (file: string, line: number) => Promise<string | undefined>;

/** diskLines is a [LineReader] over the files on disk, each read once. */
export function diskLines(): LineReader {
  const cache = new Map<string, Promise<string[] | undefined>>();
  return async (file, line) => {
    let lines = cache.get(file);
    if (!lines) {
      lines = fs.readFile(file, "utf8").then(
        (t) => t.split(/\r?\n/),
        () => undefined,
      );
      cache.set(file, lines);
    }
    return (await lines)?.[line];
  };
}

/**
 * refLocation maps a reference to the range of the name it uses: name's
 * length in UTF-16 units from its column, converted with the line's text.
 * Without a column or the line's text, the range is the whole line.
 * name is the bare name (the last part of a qualified one).
 */
export async function refLocation(root: string, r: Reference, name: string, read: LineReader): Promise<Location> {
  const file = absPath(root, r.path);
  const line = r.line - 1;
  if (r.column > 0) {
    const text = await read(file, line);
    if (text !== undefined) {
      const start = utf16Column(text, r.column);
      if (text.startsWith(name, start)) {
        return { file, range: { start: { line, character: start }, end: { line, character: start + name.length } } };
      }
      return { file, range: { start: { line, character: start }, end: { line, character: start } } };
    }
  }
  return { file, range: { start: { line, character: 0 }, end: { line, character: END_OF_LINE } } };
}

/**
 * bareName is the name ctx refs matches in text: the last identifier of a
 * qualified symbol ("(*Server).Shutdown" → "Shutdown", "a::b" → "b").
 */
export function bareName(symbol: string): string {
  const parts = symbol.split(/[^\p{L}\p{N}_$]+/u).filter((p) => p !== "");
  return parts.length > 0 ? parts[parts.length - 1] : symbol;
}

/** ResultItem is how the search view shows one find result. */
export interface ResultItem {
  /** label is the symbol, else the one-line summary, else the path. */
  label: string;
  /** description is "path:START-END" (1-based lines, as ctx prints them). */
  description: string;
  /** tooltip is the summary, kind, language and score. */
  tooltip: string;
}

/** resultItem is the search view's row for a find result. */
export function resultItem(r: FindResult): ResultItem {
  const lines = r.startLine === r.endLine ? `${r.startLine}` : `${r.startLine}-${r.endLine}`;
  const label = r.symbol || r.summary || r.path;
  const tip = [r.summary, [r.kind, r.language].filter(Boolean).join(", "), `score ${r.score}`];
  if (r.stale) tip.push("the file changed after the index answered");
  return {
    label,
    description: `${r.path}:${lines}`,
    tooltip: tip.filter(Boolean).join("\n"),
  };
}
