/**
 * The lead store's SQLite file (Node's built-in `node:sqlite`): made readable by this user only,
 * checked without writing to it, opened in WAL mode with synchronous=FULL, so a lead is on disk when
 * its transaction commits and a torn write, a full disk or a crash leaves the last committed state
 * (decision 0012), and brought to the current schema. Also what every caller needs around SQLite's
 * write lock, which several processes sharing the file take in turn.
 */
import { accessSync, chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as pause } from "node:timers/promises";

/**
 * Why the store could not be opened: the server refuses to start and says this (no lead data).
 * `errcode`: SQLite's, when it said why, so a lock held by another process is waited for (retryWhileBusy).
 */
export class StoreUnusable extends Error {
  readonly file: string;
  readonly reason: string;
  readonly errcode?: number;
  constructor(file: string, reason: string, errcode?: number) {
    super(`the lead store ${file} cannot be used: ${reason}`);
    this.name = "StoreUnusable";
    this.file = file;
    this.reason = reason;
    this.errcode = errcode;
  }
}

/** SQLite's own short words for a failed call ("database or disk is full"), never our data. */
export function sqliteCause(error: unknown): { code?: number; cause?: string } {
  const e = error as { errcode?: unknown; errstr?: unknown } | null;
  return { code: typeof e?.errcode === "number" ? e.errcode : undefined, cause: typeof e?.errstr === "string" ? e.errstr : undefined };
}

const BUSY = 5; // SQLITE_BUSY (and its extended codes): another process holds a lock SQLite needs, for now
const isBusy = (error: unknown) => ((sqliteCause(error).code ?? 0) & 0xff) === BUSY;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS leads (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  payload TEXT,
  dedupe_key TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'held', 'parked', 'delivered', 'handed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  first_accepted_at INTEGER NOT NULL,
  retry_ms INTEGER NOT NULL DEFAULT 0,
  delivered_at INTEGER,
  parked_at INTEGER,
  parked_reason TEXT,
  parked_status INTEGER,
  claimed_by TEXT,
  claimed_until INTEGER
) STRICT;
CREATE INDEX IF NOT EXISTS leads_by_status ON leads (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS leads_by_key ON leads (dedupe_key);
CREATE INDEX IF NOT EXISTS leads_by_time ON leads (first_accepted_at);
PRAGMA user_version = 1;
`;
/**
 * Version 2: when the ceiling let a lead through (`admitted_at`; none while held), and a lead
 * handed to Redis keeps its text until its delivery is confirmed. Rows handed by version 1 have
 * no text left to send again: as far as this store knows, they are done.
 */
const MIGRATE_2 = `
ALTER TABLE leads ADD COLUMN admitted_at INTEGER;
UPDATE leads SET admitted_at = first_accepted_at WHERE status <> 'held';
UPDATE leads SET status = 'delivered', claimed_by = NULL WHERE status = 'handed' AND payload IS NULL;
CREATE INDEX IF NOT EXISTS leads_by_admission ON leads (admitted_at);
PRAGMA user_version = 2;
`;
/** Version 3: the id of the record a CRM (Zoho CRM) made of a delivered lead. */
const MIGRATE_3 = `
ALTER TABLE leads ADD COLUMN crm_record TEXT;
PRAGMA user_version = 3;
`;
/**
 * With Redis (decision 0033): leads this container delivered from another container's record,
 * kept until that container has confirmed them, so the mark that tells it survives Redis losing
 * its data. No personal data: the id and when. A table of its own that the leads never touch, so
 * the schema keeps its version: a server of the version before opens the database (a rollback)
 * and only leaves it alone.
 */
const SENT_FOR_OTHERS = "CREATE TABLE IF NOT EXISTS delivered_for_others (id TEXT PRIMARY KEY, delivered_at INTEGER NOT NULL) STRICT;";
/**
 * Version 4 (3 is the CRM record's, decision 0035): the sender's address code (decision 0031), a
 * keyed hash of the client's address bucket, never the address, so one address's leads can be
 * held past its share and released fairly.
 */
const MIGRATE_4 = `
ALTER TABLE leads ADD COLUMN client_group TEXT;
CREATE INDEX IF NOT EXISTS leads_by_group ON leads (client_group, first_accepted_at);
PRAGMA user_version = 4;
`;
export const VERSION = 4;

const userVersion = (db: DatabaseSync) => Number(Object.values(db.prepare("PRAGMA user_version").get() ?? {})[0]);

/**
 * Checks an existing database without writing to it (read-only, `quick_check`, the schema), so a
 * file the server cannot read is refused, never "repaired" or replaced.
 */
function check(file: string, timeout: number) {
  if (!existsSync(file)) return;
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { readOnly: true, timeout });
    const result = db
      .prepare("PRAGMA quick_check")
      .all()
      .map((row) => Object.values(row)[0]);
    if (result.join() !== "ok") throw new StoreUnusable(file, "SQLite's quick_check found damage");
    const version = userVersion(db);
    if (version > VERSION) throw new StoreUnusable(file, `it was written by a newer version (schema ${version})`);
  } catch (error) {
    if (error instanceof StoreUnusable) throw error;
    const { code, cause } = sqliteCause(error);
    throw new StoreUnusable(file, cause ?? (error as { code?: string }).code ?? "it cannot be read", code);
  } finally {
    db?.close();
  }
}

/**
 * Opens (creating if needed) the database at `file`, its folder 0700 and its files 0600. Throws
 * StoreUnusable if an existing file cannot be read or is damaged; nothing is written to it then.
 * The file and folder are made or checked before SQLite opens them: read-only (a file or
 * folder without write permission, a read-only mount) is refused at start, rather than a store
 * that opens and then fails every visitor; an existing file is checked untouched (check above).
 *
 * `timeout`: how long SQLite itself waits for a lock another process holds, blocking the thread:
 * the server's connections wait 0 ms, so a busy lock fails at once and the caller waits without
 * blocking (retryWhileBusy; the server opens with it too, as its start may meet another process's
 * write). Only the operator's command (cli.ts), which has nothing else to do meanwhile, blocks.
 */
export function openDatabase(file: string, { timeout = 0 }: { timeout?: number } = {}): DatabaseSync {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (existsSync(file) && !statSync(file).isFile()) throw new StoreUnusable(file, "it is not a file");
  for (const path of [dirname(file), ...(existsSync(file) ? [file] : [])]) {
    try {
      accessSync(path, constants.W_OK);
    } catch (error) {
      throw new StoreUnusable(file, `${path === file ? "it" : "its folder"} is read-only (${(error as { code?: string }).code ?? "EACCES"})`);
    }
  }
  check(file, timeout);
  // Created by us, before SQLite, so the database (and its -wal and -shm, which SQLite gives the
  // database's mode) are readable by this user only.
  if (!existsSync(file)) closeSync(openSync(file, "a", 0o600));
  for (const path of [dirname(file), file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(path, path === dirname(file) ? 0o700 : 0o600);
    } catch {
      // -wal and -shm exist only while a connection is open
    }
  }
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { timeout });
    prepare(db);
    return db;
  } catch (error) {
    db?.close();
    const { code, cause } = sqliteCause(error);
    throw new StoreUnusable(file, cause ?? "it cannot be opened", code);
  }
}

/** WAL, fsync'd commits, erased text overwritten; the schema created or brought up to date. */
function prepare(db: DatabaseSync) {
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;");
  const version = () => userVersion(db);
  const sentTable = () => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'delivered_for_others'").get() !== undefined;
  if (version() >= VERSION && sentTable()) return;
  // Read again under the write lock: another process may have just done it.
  inTransaction(db, () => {
    if (version() < 1) db.exec(SCHEMA);
    if (version() < 2) db.exec(MIGRATE_2);
    if (version() < 3) db.exec(MIGRATE_3);
    if (version() < 4) db.exec(MIGRATE_4);
    db.exec(SENT_FOR_OTHERS);
  });
}

/** One write transaction; BEGIN IMMEDIATE takes the write lock first, so reads inside are current. */
export function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec("ROLLBACK");
    throw error;
  }
}

/**
 * How long a store call waits for another process's lock before it fails: a lead (its visitor
 * then gets the failure text, everything typed kept), a delivery's outcome (the claim then runs out
 * and the lead is tried again), the start. Another server's or the operator's write holds it for
 * milliseconds; held for seconds, the holder is stuck (paused mid-write) and waiting longer helps
 * no one.
 */
export const BUSY_WAIT_MS = 3_000;
/**
 * The pauses between tries: short at first (a write is over in milliseconds), doubling to a cap
 * short enough to find the lock free between another process's writes (a try costs microseconds).
 */
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 50;

/**
 * Runs a store call, and again while another process holds a lock it needs (SQLITE_BUSY, which the
 * server's connections meet at once: openDatabase), for up to `withinMs` in all. The waits are
 * timers: the event loop serves everything else meanwhile, and each try holds it only as long as
 * its statements take (decision 0039).
 */
export async function retryWhileBusy<T>(work: () => T, withinMs = BUSY_WAIT_MS): Promise<T> {
  const deadline = performance.now() + withinMs;
  for (let wait = FIRST_PAUSE_MS; ; wait = Math.min(wait * 2, LONGEST_PAUSE_MS)) {
    try {
      return work();
    } catch (error) {
      const left = deadline - performance.now();
      if (!isBusy(error) || left <= 0) throw error;
      await pause(Math.min(wait, left));
    }
  }
}
