import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { recordingLog, until } from "../tests/support/quiet-log";
import { openDb } from "./db";
import { prepareStore } from "./leads/store";
import { addNames, liveSources, readLists, removeName } from "./source-lists";

/** A server's lead store (SQLite; the command on both engines: server/leads/cli.test.ts), and its live lists read again every 20 ms. */
async function serving(start: { names: string[]; sites: string[] }) {
  const db = openDb({ file: join(mkdtempSync(join(tmpdir(), "lists-")), "leads.db") });
  await prepareStore(db);
  await addNames(db, "campaigns", ["summer"]);
  const { log, count } = recordingLog();
  let reads = 0;
  const reading = { ...db, all: (...args: Parameters<typeof db.all>) => (reads++, db.all(...args)) };
  const live = await liveSources(reading, { names: new Set(start.names), sites: start.sites, ownHosts: ["site.example"] }, log, 20);
  onTestFinished(async () => (live.close(), await db.close().catch(() => undefined)));
  return { db, live, warned: () => count("source_lists_not_read"), reads: () => reads };
}

it("at start the settings' names are added to the store's (nothing removed), then a change in the store counts without a restart", async () => {
  const { db, live } = await serving({ names: ["spring"], sites: ["example.co.za"] });
  expect([[...live.settings.names], live.settings.sites, live.settings.ownHosts]).toEqual([["spring", "summer"], ["example.co.za"], ["site.example"]]);
  expect(await readLists(db)).toEqual({ campaigns: ["spring", "summer"], sites: ["example.co.za"] });
  // As another container's command would: the next read has it.
  await addNames(db, "campaigns", ["autumn"]);
  await removeName(db, "campaigns", "spring");
  await until(() => live.settings.names.has("autumn"));
  expect([...live.settings.names]).toEqual(["autumn", "summer"]);
});

it("a failed read keeps the last lists and is warned of once, never stopping the server", async () => {
  const { db, live, warned, reads } = await serving({ names: ["spring"], sites: [] });
  await db.close();
  const before = reads();
  await until(() => reads() >= before + 3);
  expect([warned(), [...live.settings.names]]).toEqual([1, ["spring", "summer"]]);
});
