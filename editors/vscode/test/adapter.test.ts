// extension.ts under a fake `vscode` module (test/fakevscode.ts) with a real
// ctx on the fixture repository: package.json's contributions match what the
// extension registers and reads, and the commands reach ctx and show what it
// answers. A real editor cannot run here.

import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { ctxBin, Fixture, fixture, lineOf } from "./fixture";
import { install, Recorder, recorder } from "./fakevscode";

interface Manifest {
  main: string;
  contributes: {
    commands: { command: string }[];
    configuration: { properties: Record<string, { default: unknown }> };
    views: Record<string, { id: string }[]>;
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    menus: Record<string, { command: string }[]>;
  };
}

const root = path.join(__dirname, "..", "..");
const manifest: Manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));

/** waitFor polls cond every 20 ms until it holds or 20 s pass. */
async function waitFor(what: string, cond: () => boolean): Promise<void> {
  const end = Date.now() + 20_000;
  while (!cond()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("extension.ts under a fake editor", () => {
  let fx: Fixture;
  let rec: Recorder;
  const subscriptions: { dispose(): unknown }[] = [];
  const savedEnv = { ...process.env };
  const bin = ctxBin();

  before(() => {
    fx = fixture();
    rec = recorder();
    rec.folders = [{ uri: { fsPath: fx.repo, scheme: "file" }, name: "repo", index: 0 }];
    rec.settings = { path: bin, statusInterval: 0, limit: 3 };
    // The extension passes its own environment to ctx: make it the fixture's.
    for (const k of Object.keys(process.env)) if (k.startsWith("CTX_")) delete process.env[k];
    process.env.CTX_CACHE_DIR = fx.env.CTX_CACHE_DIR;
    install(rec);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ext = require(path.join(root, manifest.main));
    ext.activate({ subscriptions });
  });
  after(() => {
    for (const s of subscriptions) s.dispose();
    process.env = savedEnv;
    fs.rmSync(fx.dir, { recursive: true, force: true });
  });

  it("registers exactly the contributed commands, and menus name them", () => {
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual([...rec.commands.keys()].sort(), contributed);
    for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
      for (const e of entries) assert.ok(contributed.includes(e.command), `menu ${menu} names ${e.command}`);
    }
    for (const c of ["ctx.search", "ctx.findDefinition", "ctx.findReferences", "ctx.setup", "ctx.reindex"]) {
      assert.ok(contributed.includes(c), c);
    }
  });

  it("reads only contributed settings, and the view and its icon exist", async () => {
    await waitFor("the first status", () => rec.statusItems[0]?.visible === true);
    const props = manifest.contributes.configuration.properties;
    for (const key of rec.reads) assert.ok(key in props, `${key} is read but not contributed`);
    assert.deepEqual(Object.keys(props).sort(), ["ctx.limit", "ctx.mode", "ctx.path", "ctx.statusInterval"]);
    assert.equal(props["ctx.path"].default, "ctx");
    assert.equal(props["ctx.mode"].default, "default");
    assert.deepEqual(rec.treeViews.map((v) => v.id), manifest.contributes.views.ctx.map((v) => v.id));
    for (const c of manifest.contributes.viewsContainers.activitybar) assert.ok(fs.existsSync(path.join(root, c.icon)), c.icon);
  });

  it("shows a folder with no index in the status bar", () => {
    const item = rec.statusItems[0];
    assert.equal(item.text, "$(circle-slash) ctx: not indexed");
    assert.match(String(item.tooltip), /Fix: ctx index/);
  });

  it("offers to index when def meets exit 4, indexes, and retries", async () => {
    rec.inputs.push("connect_database");
    rec.pick = "Index now";
    await rec.commands.get("ctx.findDefinition")!();
    rec.pick = undefined;
    const offer = rec.messages.find((m) => m.actions.includes("Index now"));
    assert.ok(offer, JSON.stringify(rec.messages));
    assert.equal(offer.kind, "error");
    assert.match(offer.text, /^ctx def: not indexed: .* has no index; run `ctx index`$/);
    // The retry opened the definition with its lines selected (0-based).
    const o = rec.opened.at(-1);
    assert.ok(o, "nothing opened");
    assert.equal(o.file, path.join(fx.repo, "store", "store.py"));
    assert.equal(o.selection?.start.line, lineOf(fx.repo, "store/store.py", "def connect_database"));
    await waitFor("a fresh status", () => rec.statusItems[0].text === "$(check) ctx");
  });

  it("searches and lists results that open at their lines", async () => {
    await rec.commands.get("ctx.search")!("Greet");
    const view = rec.treeViews[0];
    const rows = view.provider.getChildren() as { label: string; description: string; command: { command: string; arguments: unknown[] } }[];
    assert.ok(rows.length > 0 && rows.length <= 3, `${rows.length} rows; the limit is 3`);
    assert.equal(rows[0].label, "Greet");
    assert.equal(rows[0].description, "greet/greet.go:4-7");
    assert.match(view.message, /for “Greet”/);
    assert.ok(rec.executed.some((e) => e.command === "ctx.results.focus"));

    await rec.commands.get(rows[0].command.command)!(...rows[0].command.arguments);
    const o = rec.opened.at(-1)!;
    assert.equal(o.file, path.join(fx.repo, "greet", "greet.go"));
    assert.deepEqual(o.selection, { start: { line: 3, character: 0 }, end: { line: 6, character: 1000 } });
  });

  it("shows a missing binary with the setting to change", async () => {
    rec.settings.path = path.join(fx.dir, "no-such-ctx");
    try {
      await rec.commands.get("ctx.search")!("Greet");
    } finally {
      rec.settings.path = bin;
    }
    const m = rec.messages.at(-1)!;
    assert.equal(m.kind, "error");
    assert.match(m.text, /no-such-ctx" was not found/);
    assert.deepEqual(m.actions, ["Open settings"]);
  });
});
