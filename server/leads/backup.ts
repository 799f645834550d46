/**
 * `backup FILE` and `restore FILE` (decision 0048): a SQLite lead store whatever the engine. A copy cannot know whether
 * an undelivered lead went out after it was made: such a lead is parked as "restored".
 */
import { existsSync, renameSync, rmSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { openDb, type Db } from "../db";
import { copyLeads, VERSION } from "./store";

/** One read's snapshot, beside running servers, written under another name and renamed once whole. */
export async function backup(db: Db, file: string, now: number): Promise<number> {
  if (existsSync(file)) throw new Error(`${file} exists already: a backup never overwrites a file`);
  const rows = await db.all("SELECT * FROM leads");
  const partial = `${file}.partial-${process.pid}`; // an overrun cron's backup beside it is not disturbed
  const copy = openDb({ file: partial }, { version: VERSION, foreignFolder: true });
  try {
    const copied = await copyLeads(rows, copy, now);
    await copy.run("PRAGMA journal_mode = DELETE");
    await copy.close();
    if (existsSync(file)) throw new Error(`${file} exists already: a backup never overwrites a file`);
    renameSync(partial, file);
    return copied;
  } finally {
    await copy.close();
    for (const path of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(path, { force: true });
  }
}

/** Read-only: it may be on a read-only mount, and is never changed by being read. */
export function readBackup(file: string) {
  if (!existsSync(file)) throw new Error(`no file at ${file}`);
  const copy = new DatabaseSync(file, { readOnly: true });
  try {
    const version = Number(copy.prepare("PRAGMA user_version").get()?.user_version);
    if (version > VERSION) throw new Error(`${file} was written by a newer version (schema ${version})`);
    if (!copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'leads'").get())
      throw new Error(`${file} holds no leads table: it is no lead store's backup`);
    return copy.prepare("SELECT * FROM leads").all();
  } finally {
    copy.close();
  }
}
