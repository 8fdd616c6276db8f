// The thin adapter between VS Code and the logic modules: it reads settings,
// registers commands, the search view and the status bar item, and turns
// the modules' plain locations and messages into VS Code objects. Everything
// that can be tested without an editor lives in client, protocol,
// locations, statusview and messages.

import * as vscode from "vscode";
import { Client, CtxError, Mode } from "./client";
import { errorMessage } from "./messages";
import { FindResult } from "./protocol";
import { bareName, defLocation, diskLines, findLocation, Location, refLocation, resultItem } from "./locations";
import { errorView, statusView, StatusView } from "./statusview";

/** Settings are the extension's configuration (package.json contributes.configuration). */
interface Settings {
  path: string;
  mode: Mode;
  limit: number;
  /** statusInterval is in seconds; 0 turns polling off. */
  statusInterval: number;
}

function settings(): Settings {
  const c = vscode.workspace.getConfiguration("ctx");
  return {
    path: c.get<string>("path", "ctx").trim() || "ctx",
    mode: c.get<Mode>("mode", "default"),
    limit: c.get<number>("limit", 20),
    statusInterval: c.get<number>("statusInterval", 60),
  };
}

let output: vscode.OutputChannel;

/** folder is the workspace folder of the active editor, else the first one. */
function folder(): vscode.WorkspaceFolder | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  const f = doc ? vscode.workspace.getWorkspaceFolder(doc.uri) : undefined;
  return f ?? vscode.workspace.workspaceFolders?.find((w) => w.uri.scheme === "file");
}

function client(f: vscode.WorkspaceFolder): Client {
  return new Client({ bin: settings().path, root: f.uri.fsPath, log: (l) => output.appendLine(l) });
}

function toRange(l: Location): vscode.Range {
  return new vscode.Range(l.range.start.line, l.range.start.character, l.range.end.line, l.range.end.character);
}

function toLocation(l: Location): vscode.Location {
  return new vscode.Location(vscode.Uri.file(l.file), toRange(l));
}

/** open shows a location with its range selected, clamped to the document. */
async function open(l: Location): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(l.file));
  const range = doc.validateRange(toRange(l));
  const ed = await vscode.window.showTextDocument(doc, { preview: true });
  ed.selection = new vscode.Selection(range.start, range.end);
  ed.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

/** ResultNode is a row of the search view. */
class ResultNode extends vscode.TreeItem {
  constructor(r: FindResult, loc: Location) {
    const item = resultItem(r);
    super(item.label, vscode.TreeItemCollapsibleState.None);
    this.description = item.description;
    this.tooltip = item.tooltip;
    this.resourceUri = vscode.Uri.file(loc.file);
    this.iconPath = vscode.ThemeIcon.File;
    this.command = { command: "ctx.openResult", title: "Open", arguments: [loc] };
  }
}

class Results implements vscode.TreeDataProvider<ResultNode> {
  private nodes: ResultNode[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  set(nodes: ResultNode[]): void {
    this.nodes = nodes;
    this.changed.fire();
  }
  getTreeItem(n: ResultNode): vscode.TreeItem {
    return n;
  }
  getChildren(n?: ResultNode): ResultNode[] {
    return n ? [] : this.nodes;
  }
}

/**
 * StatusBar keeps the status bar item in step with `ctx status --json`: on
 * activation, after saves (debounced), when the active folder changes, and
 * on an interval (every 3 s while an index run is going on).
 */
class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private inflight: AbortController | undefined;
  view: StatusView | undefined;

  constructor() {
    this.item.command = "ctx.showStatus";
    this.item.name = "ctx index";
  }

  private root: string | undefined;

  /** folderChanged refreshes when the active editor moved to another workspace folder. */
  folderChanged(): void {
    if (folder()?.uri.fsPath !== this.root) this.soon();
  }

  /** soon refreshes after a short quiet period (a burst of saves is one call). */
  soon(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.refresh(), 1500);
  }

  async refresh(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.inflight?.abort();
    const f = folder();
    if (!f) {
      this.root = undefined;
      this.item.hide();
      return;
    }
    this.root = f.uri.fsPath;
    const ac = new AbortController();
    this.inflight = ac;
    let view: StatusView;
    try {
      view = statusView(await client(f).status(ac.signal));
    } catch (e) {
      if (e instanceof CtxError && e.code === "canceled") return;
      view = e instanceof CtxError ? errorView(e) : errorView(new CtxError("failed", String(e), "", null));
    }
    if (ac.signal.aborted) return;
    this.view = view;
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.backgroundColor =
      view.state === "error" ? new vscode.ThemeColor("statusBarItem.errorBackground")
      : view.state === "stale" && view.offerIndex ? new vscode.ThemeColor("statusBarItem.warningBackground")
      : undefined;
    this.item.show();
    const every = view.state === "indexing" ? 3 : settings().statusInterval;
    if (every > 0) {
      this.timer = setTimeout(() => void this.refresh(), Math.max(3, every) * 1000);
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
    this.inflight?.abort();
    this.item.dispose();
  }
}

let statusBar: StatusBar;

/** cancellable runs fn under a cancellable progress notification; cancel kills ctx. */
function cancellable<T>(title: string, fn: (signal: AbortSignal) => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, (_p, token) => {
    const ac = new AbortController();
    token.onCancellationRequested(() => ac.abort());
    return fn(ac.signal);
  });
}

/** reindex runs `ctx index` for the folder; it resolves true when the run finished. */
async function reindex(f: vscode.WorkspaceFolder): Promise<boolean> {
  setTimeout(() => void statusBar.refresh(), 1000);
  try {
    await cancellable(`ctx: indexing ${f.name}`, (s) => client(f).index(s));
    return true;
  } catch (e) {
    await showError("index", e);
    return false;
  } finally {
    void statusBar.refresh();
  }
}

/**
 * showError shows a failed call with ctx's fix and its actions; "Index now"
 * runs `ctx index` and then retry, when given.
 */
async function showError(what: string, e: unknown, retry?: () => Promise<void>): Promise<void> {
  const m = errorMessage(what, e);
  const show = m.info ? vscode.window.showInformationMessage : vscode.window.showErrorMessage;
  const pick = await show(m.text, ...m.actions);
  if (pick === "Index now") {
    const f = folder();
    if (f && (await reindex(f)) && retry) await retry();
  } else if (pick === "Open settings") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "ctx.path");
  } else if (pick === "Show output") {
    output.show(true);
  }
}

/** wordAtCursor is the selection, else the identifier under the cursor. */
function wordAtCursor(): string | undefined {
  const ed = vscode.window.activeTextEditor;
  if (!ed) return undefined;
  if (!ed.selection.isEmpty) return ed.document.getText(ed.selection).trim() || undefined;
  const r = ed.document.getWordRangeAtPosition(ed.selection.active);
  return r ? ed.document.getText(r) : undefined;
}

function requireFolder(): vscode.WorkspaceFolder | undefined {
  const f = folder();
  if (!f) void vscode.window.showWarningMessage("ctx: open a folder first; ctx searches a workspace folder.");
  return f;
}

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel("ctx");
  statusBar = new StatusBar();
  const results = new Results();
  const view = vscode.window.createTreeView("ctx.results", { treeDataProvider: results });
  context.subscriptions.push(output, statusBar, view);

  const search = async (query: string) => {
    const f = requireFolder();
    if (!f) return;
    const s = settings();
    try {
      const answer = await cancellable(`ctx: searching ${f.name}`, (sig) => client(f).find(query, { limit: s.limit, mode: s.mode }, sig));
      results.set(answer.results.map((r) => new ResultNode(r, findLocation(f.uri.fsPath, r))));
      const notes = [`${answer.results.length} for “${answer.query}”`];
      if (answer.confidence) notes.push(`${answer.confidence} confidence`);
      if (!answer.fresh) notes.push(`stale: ${answer.staleReason || "the index may miss changes"}`);
      if (answer.partial) notes.push("partial");
      view.message = notes.join(" · ");
      await vscode.commands.executeCommand("ctx.results.focus");
    } catch (e) {
      await showError("find", e, () => search(query));
    }
  };

  const definition = async (name: string) => {
    const f = requireFolder();
    if (!f) return;
    try {
      const a = await cancellable(`ctx: definition of ${name}`, (s) => client(f).def(name, s));
      if (a.definitions.length === 0) {
        void vscode.window.showInformationMessage(`ctx: no definition of ${name} in ${f.name}.`);
        return;
      }
      const locs = a.definitions.map((d) => defLocation(f.uri.fsPath, d));
      if (locs.length === 1) {
        await open(locs[0]);
        return;
      }
      const pick = await vscode.window.showQuickPick(
        a.definitions.map((d, i) => ({
          label: d.symbol || name,
          description: `${d.path}:${d.startLine}`,
          detail: `${d.summary} (${d.resolution}, confidence ${d.confidence})`,
          loc: locs[i],
        })),
        { placeHolder: `${a.definitions.length} definitions of ${name}, best first` },
      );
      if (pick) await open(pick.loc);
    } catch (e) {
      await showError("def", e, () => definition(name));
    }
  };

  const references = async (name: string) => {
    const f = requireFolder();
    if (!f) return;
    try {
      const a = await cancellable(`ctx: references to ${name}`, (s) => client(f).refs(name, s));
      if (a.references.length === 0) {
        void vscode.window.showInformationMessage(`ctx: no references to ${name} in ${f.name}.`);
        return;
      }
      // ctx's columns count the file on disk, so its lines are read from there.
      const read = diskLines();
      const locs = await Promise.all(a.references.map((r) => refLocation(f.uri.fsPath, r, bareName(name), read)));
      const ed = vscode.window.activeTextEditor;
      if (ed) {
        await vscode.commands.executeCommand("editor.action.showReferences", ed.document.uri, ed.selection.active, locs.map(toLocation));
      } else {
        await open(locs[0]);
      }
    } catch (e) {
      await showError("refs", e, () => references(name));
    }
  };

  context.subscriptions.push(
    vscode.commands.registerCommand("ctx.search", async (q?: string) => {
      const ed = vscode.window.activeTextEditor;
      const selected = ed && !ed.selection.isEmpty ? ed.document.getText(ed.selection) : "";
      const query =
        typeof q === "string" && q.trim() !== ""
          ? q
          : await vscode.window.showInputBox({ prompt: "ctx find: a question or a symbol", value: selected.trim().slice(0, 200) });
      if (query && query.trim() !== "") await search(query.trim());
    }),
    vscode.commands.registerCommand("ctx.openResult", (l: Location) => open(l)),
    vscode.commands.registerCommand("ctx.findDefinition", async () => {
      const name = wordAtCursor() ?? (await vscode.window.showInputBox({ prompt: "ctx def: a symbol" }));
      if (name) await definition(name);
    }),
    vscode.commands.registerCommand("ctx.findReferences", async () => {
      const name = wordAtCursor() ?? (await vscode.window.showInputBox({ prompt: "ctx refs: a symbol" }));
      if (name) await references(name);
    }),
    vscode.commands.registerCommand("ctx.reindex", async () => {
      const f = requireFolder();
      if (f && (await reindex(f))) void vscode.window.showInformationMessage(`ctx: ${f.name} is indexed.`);
    }),
    vscode.commands.registerCommand("ctx.setup", async () => {
      const f = requireFolder();
      if (!f) return;
      try {
        const c = client(f);
        const plan = await c.setup(true);
        output.appendLine(plan.stdout);
        output.show(true);
        if (!/would (create|change|update|write)/.test(plan.stdout)) {
          void vscode.window.showInformationMessage("ctx setup vscode: the MCP configuration is already up to date.");
          return;
        }
        const go = await vscode.window.showInformationMessage(
          "ctx setup vscode adds ctx's MCP server to .vscode/mcp.json and a section to .github/copilot-instructions.md (the changes are in the ctx output).",
          { modal: true },
          "Write",
        );
        if (go !== "Write") return;
        const done = await c.setup(false);
        output.appendLine(done.stdout);
        if (done.stderr.trim() !== "") output.appendLine(done.stderr);
        void vscode.window.showInformationMessage(`ctx setup vscode: ${done.stdout.trim().split("\n").join("; ") || "done"}`);
      } catch (e) {
        await showError("setup", e);
      }
    }),
    vscode.commands.registerCommand("ctx.showStatus", async () => {
      const v = statusBar.view;
      if (!v) return void statusBar.refresh();
      const actions = v.offerIndex ? ["Index now", "Refresh"] : ["Refresh"];
      const pick = await vscode.window.showInformationMessage(v.tooltip, ...actions);
      const f = folder();
      if (pick === "Index now" && f) await reindex(f);
      else if (pick === "Refresh") await statusBar.refresh();
    }),
    vscode.workspace.onDidSaveTextDocument(() => statusBar.soon()),
    vscode.window.onDidChangeActiveTextEditor(() => statusBar.folderChanged()),
    vscode.workspace.onDidChangeWorkspaceFolders(() => statusBar.soon()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("ctx")) void statusBar.refresh();
    }),
  );
  void statusBar.refresh();
}

export function deactivate(): void {}
