/**
 * The embedded lead store: one SQLite database (Node's built-in `node:sqlite`) in the data folder,
 * in WAL mode with synchronous=FULL, so a lead is on disk when its transaction commits and a torn
 * write, a full disk or a crash leaves the last committed state (decision 0012). Several processes
 * may share one database: SQLite's locks serialise writers, and a delivery is claimed for a while
 * (a lease) so two processes never attempt the same lead at once.
 */
import { randomUUID } from "node:crypto";
import { accessSync, chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { DEDUPE_WINDOW_MS, MAX_DELAY_MS } from "./schedule";
import type { Lead, StoredLead } from "./types";

export type LeadStatus = "pending" | "held" | "parked" | "delivered" | "handed";

export interface LeadRow {
  id: string;
  kind: Lead["kind"];
  status: LeadStatus;
  attempts: number;
  nextAttemptAt: number;
  firstAcceptedAt: number;
  /** The retry window: scheduled waits so far (a clock jump cannot make it grow). */
  retryMs: number;
  deliveredAt: number | null;
  parkedReason: string | null;
  parkedStatus: number | null;
  /** What makes two posts the same form (schedule.ts, leadKey). */
  key: string | null;
  /** The lead as the agency receives it; null once erased (retention) or unreadable. */
  lead: StoredLead | null;
  /** Set when the stored text could not be read back. */
  unreadable?: true;
}

/** Why the store could not be opened: the server refuses to start and says this (no lead data). */
export class StoreUnusable extends Error {
  readonly file: string;
  readonly reason: string;
  constructor(file: string, reason: string) {
    super(`the lead store ${file} cannot be used: ${reason}`);
    this.name = "StoreUnusable";
    this.file = file;
    this.reason = reason;
  }
}

/** SQLite's own short words for a failed call ("database or disk is full"), never our data. */
export function sqliteCause(error: unknown): { code?: number; cause?: string } {
  const e = error as { errcode?: unknown; errstr?: unknown } | null;
  return { code: typeof e?.errcode === "number" ? e.errcode : undefined, cause: typeof e?.errstr === "string" ? e.errstr : undefined };
}

const BUSY = 5; // SQLITE_BUSY: another process holds the write lock for now

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

const SELECT =
  "SELECT id, kind, status, attempts, next_attempt_at, first_accepted_at, retry_ms, delivered_at, parked_reason, parked_status, dedupe_key, payload FROM leads";

function toRow(r: Record<string, unknown>): LeadRow {
  const base = {
    id: String(r.id),
    kind: r.kind as Lead["kind"],
    status: r.status as LeadStatus,
    attempts: Number(r.attempts),
    nextAttemptAt: Number(r.next_attempt_at),
    firstAcceptedAt: Number(r.first_accepted_at),
    retryMs: Number(r.retry_ms),
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
    parkedReason: (r.parked_reason as string | null) ?? null,
    parkedStatus: r.parked_status === null ? null : Number(r.parked_status),
    key: (r.dedupe_key as string | null) ?? null,
  };
  if (r.payload === null) return { ...base, lead: null };
  try {
    const lead = JSON.parse(String(r.payload)) as Omit<Lead, "kind">;
    return { ...base, lead: { ...lead, kind: base.kind, id: base.id, acceptedAt: base.firstAcceptedAt } };
  } catch {
    return { ...base, lead: null, unreadable: true };
  }
}

/**
 * Checks an existing database without writing to it (read-only, `quick_check`, the schema), so a
 * file the server cannot read is refused, never "repaired" or replaced.
 */
function check(file: string) {
  if (!existsSync(file)) return;
  if (!statSync(file).isFile()) throw new StoreUnusable(file, "it is not a file");
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(file, { readOnly: true, timeout: 5_000 });
    const result = db
      .prepare("PRAGMA quick_check")
      .all()
      .map((row) => Object.values(row)[0]);
    if (result.join() !== "ok") throw new StoreUnusable(file, "SQLite's quick_check found damage");
    const version = Number(Object.values(db.prepare("PRAGMA user_version").get() ?? {})[0]);
    if (version > 1) throw new StoreUnusable(file, `it was written by a newer version (schema ${version})`);
  } catch (error) {
    if (error instanceof StoreUnusable) throw error;
    const { cause } = sqliteCause(error);
    throw new StoreUnusable(file, cause ?? (error as { code?: string }).code ?? "it cannot be read");
  } finally {
    db?.close();
  }
}

export interface InsertResult {
  id: string;
  /** The same form was already stored: its lead's id, nothing new written. */
  duplicate: boolean;
  /** Stored, but over the hourly ceiling: waits for `npm run leads -- release`. */
  held: boolean;
  /** The first lead held since none was: the moment to tell the operator. */
  firstHeld: boolean;
}

export type LeadStore = ReturnType<typeof openStore>;

/**
 * Opens (creating if needed) the database at `file`, its folder 0700 and its files 0600. Throws
 * StoreUnusable if an existing file cannot be read or is damaged; nothing is written to it then.
 */
export function openStore(file: string) {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (existsSync(file) && !statSync(file).isFile()) throw new StoreUnusable(file, "it is not a file");
  // Read-only (a file or folder without write permission, a read-only mount): refused at start,
  // rather than a store that opens and then fails every visitor.
  for (const path of [dirname(file), ...(existsSync(file) ? [file] : [])]) {
    try {
      accessSync(path, constants.W_OK);
    } catch (error) {
      throw new StoreUnusable(file, `${path === file ? "it" : "its folder"} is read-only (${(error as { code?: string }).code ?? "EACCES"})`);
    }
  }
  check(file);
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
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { timeout: 250 });
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA secure_delete = ON;");
    const version = Number(Object.values(db.prepare("PRAGMA user_version").get() ?? {})[0]);
    if (version < 1) db.exec(`BEGIN IMMEDIATE; ${SCHEMA} COMMIT;`);
  } catch (error) {
    throw new StoreUnusable(file, sqliteCause(error).cause ?? "it cannot be opened");
  }
  const owner = randomUUID();

  /** One write transaction; BEGIN IMMEDIATE takes the write lock first, so reads inside are current. */
  function transaction<T>(work: () => T): T {
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

  const count = (sql: string, ...params: (string | number)[]) => Number(Object.values(db.prepare(sql).get(...params) ?? {})[0] ?? 0);

  return {
    file,
    owner,

    /**
     * Stores a lead in one transaction: the same form seen within the dedupe window answers the
     * first one's id; past `perHour` leads in the last hour, the new one is held.
     */
    insert(lead: Lead, { id, key, now, perHour }: { id: string; key: string; now: number; perHour: number }): InsertResult {
      return transaction(() => {
        const seen = db
          .prepare("SELECT id FROM leads WHERE dedupe_key = ? AND first_accepted_at > ? ORDER BY first_accepted_at LIMIT 1")
          .get(key, now - DEDUPE_WINDOW_MS);
        if (seen) return { id: String(seen.id), duplicate: true, held: false, firstHeld: false };
        const held = count("SELECT count(*) FROM leads WHERE first_accepted_at > ?", now - 3_600_000) >= perHour;
        const firstHeld = held && count("SELECT count(*) FROM leads WHERE status = 'held'") === 0;
        const { kind, ...payload } = lead;
        db.prepare("INSERT INTO leads (id, kind, payload, dedupe_key, status, next_attempt_at, first_accepted_at) VALUES (?, ?, ?, ?, ?, ?, ?)").run(
          id,
          kind,
          JSON.stringify(payload),
          key,
          held ? "held" : "pending",
          now,
          now,
        );
        return { id, duplicate: false, held, firstHeld };
      });
    },

    transaction,

    /**
     * Claims up to `limit` pending leads that are due, for `leaseMs`. A time far in the future
     * counts as due: the schedule never waits longer than MAX_DELAY_MS, so it was a clock that
     * jumped back, and a lead must not wait for the clock to catch up.
     */
    claimDue(now: number, limit: number, leaseMs: number): LeadRow[] {
      if (limit <= 0) return [];
      return transaction(() => {
        const rows = db
          .prepare(
            `${SELECT} WHERE status = 'pending' AND (next_attempt_at <= ? OR next_attempt_at > ?) AND (claimed_until IS NULL OR claimed_until <= ? OR claimed_until > ?) ORDER BY next_attempt_at LIMIT ?`,
          )
          .all(now, now + MAX_DELAY_MS + 60_000, now, now + leaseMs, limit)
          .map(toRow);
        const claim = db.prepare("UPDATE leads SET claimed_by = ?, claimed_until = ? WHERE id = ?");
        for (const row of rows) claim.run(owner, now + leaseMs, row.id);
        return rows;
      });
    },

    /** When the next pending lead is due (null: none), to sleep until then. */
    nextDueAt(): number | null {
      const row = db.prepare("SELECT min(max(next_attempt_at, coalesce(claimed_until, 0))) AS at FROM leads WHERE status = 'pending'").get();
      return row?.at === null || row?.at === undefined ? null : Number(row.at);
    },

    /** Delivered: with no retention, its text goes at once (the row stays a day, for the dedupe). */
    delivered(id: string, now: number, retentionMs: number) {
      const erase = retentionMs === 0 ? ", payload = NULL" : "";
      db.prepare(
        `UPDATE leads SET status = 'delivered', delivered_at = ?, attempts = attempts + 1, claimed_by = NULL, claimed_until = NULL${erase} WHERE id = ? AND status = 'pending'`,
      ).run(now, id);
    },

    /** Handed to Redis (which now holds the text): the local copy's text goes at once. */
    handed(id: string, now: number) {
      db.prepare(
        "UPDATE leads SET status = 'handed', delivered_at = ?, payload = NULL, claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status = 'pending'",
      ).run(now, id);
    },

    retryLater(id: string, now: number, delayMs: number) {
      db.prepare(
        "UPDATE leads SET attempts = attempts + 1, next_attempt_at = ?, retry_ms = retry_ms + ?, claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status = 'pending' AND claimed_by = ?",
      ).run(now + delayMs, delayMs, id, owner);
    },

    park(id: string, now: number, reason: string, status?: number) {
      db.prepare(
        "UPDATE leads SET status = 'parked', attempts = attempts + 1, parked_at = ?, parked_reason = ?, parked_status = ?, claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status = 'pending'",
      ).run(now, reason, status ?? null, id);
    },

    /** Lets claims of this process go (at a clean stop), so another process need not wait. */
    releaseClaims() {
      db.prepare("UPDATE leads SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?").run(owner);
    },

    /** Parked (retry) or held (release) leads, all or those named, become pending now, with a fresh retry window. */
    requeue(from: "parked" | "held", ids: string[], now: number): number {
      return transaction(() => {
        const move = db.prepare(
          "UPDATE leads SET status = 'pending', attempts = 0, retry_ms = 0, next_attempt_at = ?, parked_at = NULL, parked_reason = NULL, parked_status = NULL WHERE status = ? AND (? = 1 OR id = ?)",
        );
        if (ids.length === 0) return Number(move.run(now, from, 1, "").changes);
        return ids.reduce((n, id) => n + Number(move.run(now, from, 0, id).changes), 0);
      });
    },

    list(statuses: LeadStatus[]): LeadRow[] {
      return db
        .prepare(`${SELECT} WHERE status IN (${statuses.map(() => "?").join(", ")}) ORDER BY first_accepted_at, rowid`)
        .all(...statuses)
        .map(toRow);
    },

    stats(now: number) {
      const by = Object.fromEntries(
        db
          .prepare("SELECT status, count(*) AS n FROM leads GROUP BY status")
          .all()
          .map((r) => [String(r.status), Number(r.n)]),
      );
      const oldest = db.prepare("SELECT min(first_accepted_at) AS at FROM leads WHERE status = 'pending'").get()?.at;
      return {
        pending: by.pending ?? 0,
        held: by.held ?? 0,
        parked: by.parked ?? 0,
        delivered: (by.delivered ?? 0) + (by.handed ?? 0),
        oldestPendingSeconds: oldest === null || oldest === undefined ? null : Math.max(0, Math.round((now - Number(oldest)) / 1000)),
      };
    },

    /**
     * Retention: a delivered lead's text is erased `retentionMs` after delivery; its row (id,
     * kind, dedupe key, times) a day after at least, so a late replay still finds it. Parked and
     * held leads are kept until the operator acts.
     */
    purge(now: number, retentionMs: number): number {
      return transaction(() => {
        const erased = db
          .prepare("UPDATE leads SET payload = NULL WHERE status IN ('delivered', 'handed') AND payload IS NOT NULL AND delivered_at <= ?")
          .run(now - retentionMs).changes;
        const removed = db
          .prepare("DELETE FROM leads WHERE status IN ('delivered', 'handed') AND delivered_at <= ?")
          .run(now - Math.max(retentionMs, DEDUPE_WINDOW_MS)).changes;
        return Number(erased) + Number(removed);
      });
    },

    /** Folds the WAL into the database (at start and at a clean stop); a full disk only postpones it. */
    checkpoint() {
      try {
        db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      } catch {
        // not needed for correctness: the WAL is the data until then
      }
    },

    close() {
      if (db.isOpen) db.close();
    },
  };
}

/** Runs a store call again while another process holds the write lock (up to ~3 s, without blocking). */
export async function whenFree<T>(work: () => T, attempts = 12): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return work();
    } catch (error) {
      if (((sqliteCause(error).code ?? 0) & 0xff) !== BUSY || i >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
