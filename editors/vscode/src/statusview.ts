// What the status bar item says about the index, from `ctx status --json` or
// the error it ended with. No `vscode` import; "$(name)" is VS Code's icon
// syntax in status bar text.

import { CtxError } from "./client";
import { Progress, Status } from "./protocol";

/** State is the index's freshness as the status bar shows it. */
export type State = "fresh" | "stale" | "indexing" | "not-indexed" | "error";

/** StatusView is the status bar item's content. */
export interface StatusView {
  state: State;
  /** text is the item's short label. */
  text: string;
  /** tooltip says why, and what to run. */
  tooltip: string;
  /** fix is the command that brings the index up to date ("" when none applies). */
  fix: string;
  /** offerIndex: running `ctx index` is the fix. */
  offerIndex: boolean;
}

const NEVER = "0001-01-01T00:00:00Z";

/**
 * statusView describes a status. Indexing progress comes from progress when
 * an `indexing` or `partial` error carried it; otherwise, during a first
 * index, from the files committed against those still to add.
 */
export function statusView(st: Status, progress?: Progress): StatusView {
  const summary = `${st.files} files, ${st.chunks} chunks, ${formatBytes(st.sourceBytes)} of source; index ${formatBytes(st.indexBytes)}`;
  const when = st.lastIndexed && st.lastIndexed !== NEVER ? `last indexed ${st.lastIndexed} (generation ${st.generation})` : "";
  const lines = (...ls: string[]) => [`ctx: ${st.root}`, ...ls.filter(Boolean)].join("\n");
  const pending = st.changed + st.added + st.deleted;

  if (st.indexing) {
    let pct: number | undefined;
    if (progress && progress.filesTotal > 0) {
      pct = progress.percent;
    } else if (st.incomplete && st.files + pending > 0) {
      // A first run: the files committed so far against those on disk
      // that the index does not hold yet.
      pct = (100 * st.files) / (st.files + pending);
    }
    const p = pct === undefined ? "" : ` ${Math.floor(pct)}%`;
    const eta = progress && progress.etaSeconds > 0 ? `, about ${Math.round(progress.etaSeconds)} s left` : "";
    return {
      state: "indexing",
      text: `$(sync~spin) ctx${p}`,
      tooltip: lines(`Indexing${p}${eta}: ${st.files} files indexed, ${pending} to go.`, summary),
      fix: "",
      offerIndex: false,
    };
  }
  if (st.stale) {
    return staleView(lines("Stale: the index was built by another ctx build, schema or embedding model.", "Fix: ctx index (rebuilds it)", summary, when));
  }
  if (st.incomplete) {
    return staleView(lines("Stale: the last index run did not finish; files it had not reached answer from their earlier state.", "Fix: ctx index (completes it)", summary, when));
  }
  if (pending > 0) {
    const what = `${st.changed} changed, ${st.added} added, ${st.deleted} deleted since the last index`;
    if (st.watching) {
      return {
        state: "stale",
        text: "$(sync) ctx",
        tooltip: lines(`Catching up: ${what}; the watcher is indexing them.`, summary, when),
        fix: "",
        offerIndex: false,
      };
    }
    return staleView(lines(`Stale: ${what}.`, "Fix: ctx index, or keep ctx watch running", summary, when));
  }
  return {
    state: "fresh",
    text: "$(check) ctx",
    tooltip: lines(`Fresh${st.watching ? " (watched)" : ""}.`, summary, when),
    fix: "",
    offerIndex: false,
  };
}

function staleView(tooltip: string): StatusView {
  return { state: "stale", text: "$(warning) ctx stale", tooltip, fix: "ctx index", offerIndex: true };
}

/** errorView describes a status call that failed: not indexed (exit 4) or an error. */
export function errorView(err: CtxError): StatusView {
  const fix = err.fix ? `\nFix: ${err.fix}` : "";
  if (err.code === "indexing" || err.code === "partial") {
    const p = err.progress ? ` ${Math.floor(err.progress.percent)}%` : "";
    return { state: "indexing", text: `$(sync~spin) ctx${p}`, tooltip: `${err.message}${fix}`, fix: "", offerIndex: false };
  }
  if (err.notIndexed) {
    // not_indexed: no index; stale (another build or model) and
    // interrupted (a first run that stopped): one to rebuild or finish.
    const missing = err.code === "not_indexed";
    return {
      state: missing ? "not-indexed" : "stale",
      text: missing ? "$(circle-slash) ctx: not indexed" : `$(warning) ctx ${err.code}`,
      tooltip: `${err.message}${fix}`,
      fix: err.fix,
      offerIndex: err.fix.startsWith("ctx index"),
    };
  }
  return { state: "error", text: "$(error) ctx", tooltip: `${err.message}${fix}`, fix: err.fix, offerIndex: false };
}

/** formatBytes writes a byte count with a binary unit: "512 B", "3.4 MiB". */
export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}
