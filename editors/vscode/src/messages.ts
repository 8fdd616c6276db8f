// How a failed ctx call is shown to the user: ctx's message, its fix, and the
// actions the notification offers. No `vscode` import.

import { CtxError } from "./client";

/** Action is a button of an error notification. */
export type Action = "Index now" | "Open settings" | "Show output";

/** ErrorMessage is a notification: its text, whether it is only a note, and its buttons. */
export interface ErrorMessage {
  text: string;
  /** info: not a failure (canceled, or a first index still running). */
  info: boolean;
  actions: Action[];
}

/**
 * errorMessage describes err for a notification. The fix from ctx's error
 * JSON is appended unless the message already names it; exit code 4 with
 * `ctx index` as the fix offers to index; a missing binary offers the
 * setting; ctx's stderr, when there is some, is one click away.
 */
export function errorMessage(what: string, err: unknown): ErrorMessage {
  if (!(err instanceof CtxError)) {
    return { text: `ctx ${what}: ${err instanceof Error ? err.message : String(err)}`, info: false, actions: [] };
  }
  if (err.code === "canceled") {
    return { text: `ctx ${what} canceled.`, info: true, actions: [] };
  }
  let text = `ctx ${what}: ${err.message}`;
  if (err.fix && !err.message.includes(err.fix)) {
    text += ` Fix: ${err.fix}`;
  }
  if (err.progress && err.progress.filesTotal > 0) {
    text += ` (first index ${Math.floor(err.progress.percent)}% done: ${err.progress.filesDone} of ${err.progress.filesTotal} files)`;
  }
  const actions: Action[] = [];
  const info = err.code === "indexing" || err.code === "partial";
  if (err.notIndexed && !info && err.fix.startsWith("ctx index")) {
    actions.push("Index now");
  }
  if (err.code === "missing_binary" || err.code === "not_executable") {
    actions.push("Open settings");
  }
  if (err.stderr.trim() !== "") {
    actions.push("Show output");
  }
  return { text, info, actions };
}
