// A stand-in for the parts of the `vscode` module that extension.ts uses,
// recording what the extension shows, so its wiring (commands, settings,
// views, status bar) runs under Node against a real ctx. It models no
// editor behaviour beyond what those calls need.

import Module = require("node:module");

/** Recorder is what the fake saw and what its prompts answer. */
export interface Recorder {
  commands: Map<string, (...args: unknown[]) => unknown>;
  executed: { command: string; args: unknown[] }[];
  messages: { kind: "info" | "warning" | "error"; text: string; actions: string[] }[];
  statusItems: { text: string; tooltip: unknown; visible: boolean }[];
  treeViews: { id: string; provider: { getChildren(): unknown[] }; message: string }[];
  opened: { file: string; selection?: { start: { line: number; character: number }; end: { line: number; character: number } } }[];
  /** settings answers workspace.getConfiguration("ctx").get(key). */
  settings: Record<string, unknown>;
  /** reads lists the keys the extension asked for. */
  reads: Set<string>;
  /** inputs answer showInputBox in turn. */
  inputs: string[];
  /** pick answers showInformationMessage/showErrorMessage (undefined: dismissed). */
  pick?: string;
  folders: { uri: { fsPath: string; scheme: string }; name: string; index: number }[];
}

export function recorder(): Recorder {
  return {
    commands: new Map(),
    executed: [],
    messages: [],
    statusItems: [],
    treeViews: [],
    opened: [],
    settings: {},
    reads: new Set(),
    inputs: [],
    folders: [],
  };
}

class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    if (typeof a === "number") {
      this.start = new Position(a, b as number);
      this.end = new Position(c!, d!);
    } else {
      this.start = a;
      this.end = b as Position;
    }
  }
}

class Selection extends Range {}

const disposable = { dispose() {} };

/** fake builds a `vscode` module object over rec. */
export function fake(rec: Recorder): Record<string, unknown> {
  const uriFile = (fsPath: string) => ({ fsPath, scheme: "file", toString: () => `file://${fsPath}` });
  const message = (kind: "info" | "warning" | "error") => async (text: string, ...rest: unknown[]) => {
    const actions = rest.filter((a): a is string => typeof a === "string");
    rec.messages.push({ kind, text, actions });
    return rec.pick !== undefined && actions.includes(rec.pick) ? rec.pick : undefined;
  };
  const event = () => () => disposable;
  return {
    Position,
    Range,
    Selection,
    Location: class {
      constructor(
        readonly uri: unknown,
        readonly range: Range,
      ) {}
    },
    Uri: { file: uriFile },
    ThemeIcon: class {
      static File = {};
    },
    ThemeColor: class {
      constructor(readonly id: string) {}
    },
    TreeItem: class {
      constructor(
        readonly label: string,
        readonly collapsibleState: number,
      ) {}
    },
    EventEmitter: class {
      event = () => disposable;
      fire() {}
      dispose() {}
    },
    TreeItemCollapsibleState: { None: 0 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { Notification: 15 },
    TextEditorRevealType: { InCenterIfOutsideViewport: 2 },
    window: {
      activeTextEditor: undefined,
      createOutputChannel: () => ({ appendLine() {}, show() {}, dispose() {} }),
      createStatusBarItem: () => {
        const item = { text: "", tooltip: undefined as unknown, visible: false, command: "", name: "", backgroundColor: undefined, show() { item.visible = true; }, hide() { item.visible = false; }, dispose() {} };
        rec.statusItems.push(item);
        return item;
      },
      createTreeView: (id: string, opts: { treeDataProvider: { getChildren(): unknown[] } }) => {
        const v = { id, provider: opts.treeDataProvider, message: "", dispose() {} };
        rec.treeViews.push(v);
        return v;
      },
      withProgress: (_o: unknown, task: (p: unknown, token: unknown) => Promise<unknown>) =>
        task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: () => disposable }),
      showInformationMessage: message("info"),
      showWarningMessage: message("warning"),
      showErrorMessage: message("error"),
      showInputBox: async () => rec.inputs.shift(),
      showQuickPick: async (items: unknown[]) => items[0],
      showTextDocument: async (doc: { file: string }) => {
        const entry: Recorder["opened"][number] = { file: doc.file };
        rec.opened.push(entry);
        return {
          set selection(s: Selection) {
            entry.selection = { start: { ...s.start }, end: { ...s.end } };
          },
          revealRange() {},
        };
      },
      onDidChangeActiveTextEditor: event(),
    },
    workspace: {
      get workspaceFolders() {
        return rec.folders;
      },
      textDocuments: [],
      getWorkspaceFolder: () => rec.folders[0],
      getConfiguration: (section: string) => ({
        get: (key: string, def: unknown) => {
          rec.reads.add(`${section}.${key}`);
          return key in rec.settings ? rec.settings[key] : def;
        },
      }),
      openTextDocument: async (uri: { fsPath: string }) => ({
        file: uri.fsPath,
        // Clamp the end of line as a document would, to a short line.
        validateRange: (r: Range) => new Range(r.start, new Position(r.end.line, Math.min(r.end.character, 1000))),
      }),
      onDidSaveTextDocument: event(),
      onDidChangeWorkspaceFolders: event(),
      onDidChangeConfiguration: event(),
    },
    commands: {
      registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => {
        rec.commands.set(id, fn);
        return disposable;
      },
      executeCommand: async (command: string, ...args: unknown[]) => {
        rec.executed.push({ command, args });
        const fn = rec.commands.get(command);
        return fn ? fn(...args) : undefined;
      },
    },
  };
}

/** install makes require("vscode") return the fake for rec. */
export function install(rec: Recorder): void {
  const m = Module as unknown as { _load(request: string, ...rest: unknown[]): unknown };
  const load = m._load;
  const vscode = fake(rec);
  m._load = function (request: string, ...rest: unknown[]) {
    return request === "vscode" ? vscode : load.call(this, request, ...rest);
  };
}
