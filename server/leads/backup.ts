/**
 * `npm run leads -- backup FILE` and `restore FILE` (docs/operations.md, "Backup and restore";
 * decision 0048). A backup is a SQLite lead store whichever engine the leads live in, so one
 * command restores it anywhere; drafts, limits and counts stay out (nothing a visitor loses).
 * What a copy cannot know is whether an undelivered lead went out after it was made: in a
 * backup, and in whatever a restore adds, such a lead is parked as "restored", for the operator.
 */
import { existsSync, rmSync } from "node:fs";
import { openDb, type Db } from "../db";
import { copyLeads, RESTORED, VERSION } from "./store";

/** Every lead of `db` as one read sees them (a snapshot on both engines, beside running servers), into a new file. */
export async function backup(db: Db, file: string, now: number): Promise<number> {
  if (existsSync(file)) throw new Error(`${file} exists already: a backup never overwrites a file`);
  const rows = await db.all("SELECT * FROM leads");
  const copy = openDb({ file }, { version: VERSION });
  try {
    return await copyLeads(rows, copy, now);
  } catch (error) {
    await copy.close();
    for (const path of [file, `${file}-wal`, `${file}-shm`]) rmSync(path, { force: true });
    throw error;
  } finally {
    await copy.close();
  }
}

/** A copy's leads that `db` does not have, added (`db`'s own rows win); `parked`: how many restored leads wait for the operator now. */
export async function restore(db: Db, file: string, now: number): Promise<{ read: number; added: number; parked: number }> {
  if (!existsSync(file)) throw new Error(`no file at ${file}`);
  const copy = openDb({ file }, { version: VERSION });
  const rows = await copy.all("SELECT * FROM leads").finally(() => copy.close());
  const added = await copyLeads(rows, db, now);
  const parked = Number((await db.get("SELECT count(*) AS n FROM leads WHERE status = 'parked' AND parked_reason = ?", [RESTORED]))?.n);
  return { read: rows.length, added, parked };
}
