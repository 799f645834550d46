/**
 * The lead store, the queue and the record in one table on either engine (decision 0046): a
 * delivery claims rows for a lease and writes the outcome into the same row, so no lead is sent by
 * two processes at once, and one a dead process claimed is taken by another when its claim runs out.
 */
import { randomUUID } from "node:crypto";
import { existsSync, renameSync } from "node:fs";
import { ADDRESS_CODE_HOURS } from "~/content/privacy";
import { openDb, StoreUnusable, type Db, type Param, type Row, type Sql } from "../db";
import { eraseOutcome, purgeOutcomes, recordOutcome } from "./outcomes";
import { answerFields } from "./send";
import { DEDUPE_WINDOW_MS, MAX_DELAY_MS, PER_ADDRESS } from "./schedule";
import type { Lead, StoredLead } from "./types";

type LeadStatus = "pending" | "held" | "parked" | "delivered";

/**
 * A lead's row: `retryMs`, the waits scheduled so far (a clock jump cannot grow it); `parkedReason`,
 * a parked lead's failure or the rule that held a held one; `group`, its address code (decision
 * 0031); `record`, Zoho CRM's id for it; `lead`, null once erased or unreadable.
 */
export interface LeadRow {
  id: string;
  kind: Lead["kind"];
  status: LeadStatus;
  attempts: number;
  firstAcceptedAt: number;
  retryMs: number;
  deliveredAt: number | null;
  parkedReason: string | null;
  parkedStatus: number | null;
  group: string | null;
  record: string | null;
  lead: StoredLead | null;
}

/** The schema. The version stays 4 while only tables are added, so the release before still opens the file. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS leads (
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, payload TEXT, dedupe_key TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'held', 'parked', 'delivered')),
  attempts {int} NOT NULL DEFAULT 0, next_attempt_at {int} NOT NULL, first_accepted_at {int} NOT NULL,
  retry_ms {int} NOT NULL DEFAULT 0, delivered_at {int}, parked_at {int}, parked_reason TEXT, parked_status {int},
  claimed_by TEXT, claimed_until {int}, admitted_at {int}, crm_record TEXT, client_group TEXT
){strict};
CREATE INDEX IF NOT EXISTS leads_by_status ON leads (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS leads_by_key ON leads (dedupe_key);
CREATE INDEX IF NOT EXISTS leads_by_time ON leads (first_accepted_at);
CREATE INDEX IF NOT EXISTS leads_by_admission ON leads (admitted_at);
CREATE INDEX IF NOT EXISTS leads_by_group ON leads (client_group, first_accepted_at);
CREATE TABLE IF NOT EXISTS source_names (
  list TEXT NOT NULL CHECK (list IN ('campaigns', 'sites')), name TEXT NOT NULL, PRIMARY KEY (list, name)
){strict};
CREATE TABLE IF NOT EXISTS funnel_link_key (id {int} PRIMARY KEY CHECK (id = 1), secret TEXT NOT NULL){strict};
CREATE TABLE IF NOT EXISTS outcomes (
  reference TEXT UNIQUE, day TEXT NOT NULL, source TEXT NOT NULL, device TEXT NOT NULL, kind TEXT NOT NULL,
  outcome TEXT NOT NULL DEFAULT 'none' CHECK (outcome IN ('none', 'won', 'lost')), value {int}, decided_at {int}, crm_record TEXT
){strict};
CREATE INDEX IF NOT EXISTS outcomes_by_day ON outcomes (day);
CREATE TABLE IF NOT EXISTS outcome_reads (name TEXT PRIMARY KEY, claimed_by TEXT, claimed_until {int}){strict}`;
export const VERSION = 4;

const COLUMNS =
  "id, kind, status, attempts, first_accepted_at, retry_ms, delivered_at, parked_reason, parked_status, dedupe_key, crm_record, client_group, payload";
const SELECT = `SELECT ${COLUMNS} FROM leads`;
const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));

function toRow(r: Row): LeadRow {
  const base = {
    id: String(r.id),
    kind: r.kind as Lead["kind"],
    status: r.status as LeadStatus,
    attempts: Number(r.attempts),
    firstAcceptedAt: Number(r.first_accepted_at),
    retryMs: Number(r.retry_ms),
    deliveredAt: num(r.delivered_at),
    parkedReason: (r.parked_reason as string | null) ?? null,
    parkedStatus: num(r.parked_status),
    group: (r.client_group as string | null) ?? null,
    record: (r.crm_record as string | null) ?? null,
  };
  try {
    if (r.payload === null) return { ...base, lead: null };
    const lead = JSON.parse(String(r.payload)) as Omit<Lead, "kind">;
    return { ...base, lead: { ...lead, kind: base.kind, id: base.id, acceptedAt: base.firstAcceptedAt } };
  } catch {
    return { ...base, lead: null };
  }
}

/** One address has as many leads held as it may (PER_ADDRESS.held): nothing was stored. */
export class AddressFull extends Error {
  constructor() {
    super("this address already has as many leads held as it may");
    this.name = "AddressFull";
  }
}

/** Names given to `discard` that are no held or restored lead's: nothing was discarded. */
export class NotHeld extends Error {
  constructor(readonly names: string[]) {
    super(`not a held or restored lead's id or address code: ${names.join(", ")}`);
    this.name = "NotHeld";
  }
}

/** `duplicate`: the form was stored already (the first one's id); `firstHeld`: the first held since none was, when the operator is told. */
export type InsertResult = { id: string; duplicate: boolean; held: boolean; heldFor?: "ceiling" | "address"; firstHeld: boolean };

const HOUR_MS = 3_600_000;
/**
 * How far ahead of this process's clock another's admission still counts: containers' clocks (and one process's reads of its own) differ by milliseconds to
 * seconds, and a lead another let through "in the future" must still take the ceiling's room. Further ahead, the clock jumped back: not counted.
 */
const SKEW_MS = 60_000;

export type LeadStore = ReturnType<typeof leadStore>;

const each = async (tx: Sql, sql: string) => {
  for (const statement of sql.split(";").filter((part) => part.trim())) await tx.run(statement);
};

/** Brings the database to the schema; a SQLite store older than the release before is refused, untouched (decision 0049). */
export async function prepareStore(db: Db) {
  await db.transaction(
    async (tx) => {
      if (db.engine === "sqlite" && (await tx.get("SELECT 1 FROM sqlite_master WHERE name = 'leads'"))) {
        const version = Number((await tx.get("PRAGMA user_version"))?.user_version);
        if (version < VERSION)
          throw new StoreUnusable(db.where, `it was written by an older release (schema ${version}): start the release before this one on it first`);
      }
      await each(tx, SCHEMA);
      if (db.engine === "sqlite") await tx.run(`PRAGMA user_version = ${VERSION}`);
      // A lead stored before outcomes were kept, or copied in by a restore, gets its row: its source if its text says it.
      for (const r of await tx.all(
        "SELECT id, kind, first_accepted_at, payload FROM leads l WHERE NOT EXISTS (SELECT 1 FROM outcomes WHERE reference = l.id)",
      )) {
        const stored = { ...answerFields(String(r.payload)), kind: r.kind } as Lead; // erased text: null, no source
        await recordOutcome(tx, stored, String(r.id), Number(r.first_accepted_at));
      }
    },
    { exclusive: true },
  );
}

/** A parked lead's reason when it came back from a copy (backup or restore) undelivered. */
export const RESTORED = "restored";
/** What a copy cannot know to have been delivered since it was made (a parked lead may have been retried). */
const UNDELIVERED = ["pending", "held", "parked"];

/** What a lead's row holds beyond a claim (a claim is measured on its own engine's clock). */
const KEPT = [...COLUMNS.split(", "), "next_attempt_at", "parked_at", "admitted_at"];

/**
 * A data folder's SQLite store met with DATABASE_URL (one container becoming several): its leads move into PostgreSQL, each once, and the file is renamed. A
 * server still running on the file stops the start (leaving WAL mode needs it alone), rather than thank visitors into a file left behind.
 */
export async function moveIntoPostgres(db: Db, file: string): Promise<number | undefined> {
  if (db.engine !== "postgres" || !existsSync(file)) return undefined;
  const old = openDb({ file }, { version: VERSION });
  let rows: Row[];
  try {
    await prepareStore(old);
    const alone = await old.get("PRAGMA journal_mode = DELETE").then(
      (r) => r?.journal_mode === "delete",
      () => false,
    );
    if (!alone) throw new StoreUnusable(file, "another server still has it open: stop it, then start this one to move its leads into PostgreSQL");
    rows = await old.all(`SELECT ${KEPT.join(", ")} FROM leads`);
  } finally {
    await old.close();
  }
  const moved = await copyLeads(rows, db);
  renameSync(file, `${file}.moved-to-postgresql`);
  return moved;
}

/**
 * Another store's rows added to `db`'s, each once (a lead `db` has keeps its row). With `restoredAt`, one not delivered in the copy is parked as "restored":
 * it may have gone out since, so it waits for the operator (decision 0048).
 */
export async function copyLeads(rows: Row[], db: Db, restoredAt?: number): Promise<number> {
  await prepareStore(db);
  const undelivered = (row: Row) => restoredAt !== undefined && UNDELIVERED.includes(String(row.status));
  const insert = `INSERT INTO leads (${KEPT.join(", ")}) VALUES (${KEPT.map(() => "?").join(", ")}) ON CONFLICT (id) DO NOTHING`;
  let n = 0;
  // In short transactions, so a server beside it waits a moment, not the whole copy.
  for (let start = 0; start < rows.length; start += 500)
    n += await db.transaction(async (tx) => {
      let added = 0;
      for (const row of rows.slice(start, start + 500)) {
        const kept = undelivered(row) ? { ...row, status: "parked", parked_at: restoredAt, parked_reason: RESTORED, parked_status: null } : row;
        added += await tx.run(
          insert,
          KEPT.map((column) => (kept[column] ?? null) as Param),
        );
      }
      return added;
    });
  return n;
}

/**
 * Two clocks, each for its own decision (decision 0046):
 * - when a lead is due (`next_attempt_at`) is a schedule on the wall clock (`:now`): what a lead is
 *   stamped with, what the 7-day retry window and the operator's list count on;
 * - whether a claim still holds (`claimed_until`) is on the lease clock (`:lease`, db.leaseNow: the
 *   host's monotonic clock on SQLite, the database's on PostgreSQL), which every process claiming
 *   from this store reads alike and which never jumps, so a wall clock set back or forward never
 *   lets two processes send one lead at once. A claim is named `:mine` first (the host's boot on
 *   SQLite), so one from before a reboot, on a clock that restarted, holds nothing.
 * Only nextDueAt converts between them: a claim's end, as a wall-clock time to sleep until.
 */
const CLAIM_HOLDS = "(claimed_by IS NOT NULL AND substr(claimed_by, 1, length(:mine)) = :mine AND coalesce(claimed_until, 0) > :lease)";

/**
 * Who writes an attempt's outcome (decision 0046): a failure (a retry, a park) only the process whose claim the lead is under, so one paused past its claim
 * never parks a lead another is sending; a receiver's confirmation whoever learns it, onto a lead not yet delivered, parked by another's failure included:
 * the receiver has it, and a retry would send it again. An outcome that changes no row came too late (the lead delivered, erased, or another's): the caller
 * says so.
 */
const UNDER_MY_CLAIM = "id = :id AND status = 'pending' AND claimed_by = :owner";
const NOT_YET_DELIVERED = "id = :id AND status IN ('pending', 'parked')";

/** The store's SQL on `db`. */
export function leadStore(db: Db) {
  /** This process's claims' name; a claim is another's unless its name starts with `mine`. */
  const [mine, owner] = [db.leasePrefix, `${db.leasePrefix}${randomUUID()}`];
  const count = async (sql: Sql, query: string, params: (string | number)[]) => Number(Object.values((await sql.get(query, params)) ?? {})[0] ?? 0);
  /** Leads the ceiling let through in the last hour (a time ahead of the clock is not counted). */
  const admitted = (sql: Sql, now: number) =>
    count(sql, "SELECT count(*) FROM leads WHERE admitted_at > ? AND admitted_at <= ?", [now - HOUR_MS, now + SKEW_MS]);

  /**
   * The held lead to let go next, fairly (decision 0031): of each address's oldest held lead whose address has room in its window, the one with the fewest
   * leads of its address in the hour before it (a flood's tenth lead waits behind everyone's first), then the address with fewer held, then the oldest. A
   * lead stored without an address counts as one of its own.
   */
  const fairest = async (sql: Sql, now: number) =>
    sql.get(
      `WITH firsts AS (
         SELECT id, kind, client_group AS address, first_accepted_at AS first,
                count(*) OVER (PARTITION BY client_group) AS held,
                row_number() OVER (PARTITION BY client_group ORDER BY first_accepted_at, id) AS place
           FROM leads WHERE status = 'held' AND client_group IS NOT NULL
         UNION ALL
         SELECT id, kind, NULL, first_accepted_at, 1, 1 FROM leads WHERE status = 'held' AND client_group IS NULL
       )
       SELECT id, kind FROM firsts f
       WHERE place = 1 AND (address IS NULL OR
         (SELECT count(*) FROM leads a WHERE a.client_group = f.address AND a.admitted_at > :windowStart AND a.admitted_at <= :windowEnd) < :letThrough)
       ORDER BY
         (SELECT count(*) FROM leads b WHERE b.client_group = f.address AND b.first_accepted_at > f.first - :hour
            AND (b.first_accepted_at < f.first OR (b.first_accepted_at = f.first AND b.id < f.id))),
         held, first, id
       LIMIT 1`,
      { windowStart: now - PER_ADDRESS.windowMs, windowEnd: now + SKEW_MS, letThrough: PER_ADDRESS.letThrough, hour: HOUR_MS },
    );

  /** An attempt's outcome, written into its row with the claim let go; resolves with the rows changed (0: too late). */
  const outcome = (set: string, where: string, params: Record<string, Param>) =>
    db.run(`UPDATE leads SET ${set}, attempts = attempts + 1, claimed_by = NULL, claimed_until = NULL WHERE ${where}`, params);

  return {
    /**
     * Stores a lead with its outcome's row (`device`: the funnel's class of the sending browser), or answers the same form's first id; past the ceiling or
     * its address's share it is held; AddressFull stores nothing.
     */
    insert: (
      lead: Lead,
      { id, key, now, perHour, group = null, device }: { id: string; key: string; now: number; perHour: number; group?: string | null; device?: string },
    ) =>
      db.transaction(
        async (tx): Promise<InsertResult> => {
          const seen = await tx.get("SELECT id FROM leads WHERE dedupe_key = ? AND first_accepted_at > ? ORDER BY first_accepted_at LIMIT 1", [
            key,
            now - DEDUPE_WINDOW_MS,
          ]);
          if (seen) return { id: String(seen.id), duplicate: true, held: false, firstHeld: false };
          if (group !== null && (await count(tx, "SELECT count(*) FROM leads WHERE client_group = ? AND status = 'held'", [group])) >= PER_ADDRESS.held)
            throw new AddressFull();
          const ofAddress =
            group === null
              ? 0
              : await count(tx, "SELECT count(*) FROM leads WHERE client_group = ? AND admitted_at > ? AND admitted_at <= ?", [
                  group,
                  now - PER_ADDRESS.windowMs,
                  now + SKEW_MS,
                ]);
          const heldFor = ofAddress >= PER_ADDRESS.letThrough ? "address" : (await admitted(tx, now)) >= perHour ? "ceiling" : undefined;
          const held = heldFor !== undefined;
          const firstHeld = held && (await count(tx, "SELECT count(*) FROM leads WHERE status = 'held'", [])) === 0;
          const { kind, ...payload } = lead;
          await tx.run(
            // A held lead's rule is kept in parked_reason (no schema change): the list and the metrics say why.
            "INSERT INTO leads (id, kind, payload, dedupe_key, status, next_attempt_at, first_accepted_at, admitted_at, client_group, parked_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [id, kind, JSON.stringify(payload), key, held ? "held" : "pending", now, now, held ? null : now, group, heldFor ?? null],
          );
          await recordOutcome(tx, lead, id, now, device);
          return { id, duplicate: false, held, heldFor, firstHeld };
        },
        { exclusive: true },
      ),

    /** The fairest held lead, let go once the last hour has room and the last lead let through is an hour / `perHour` old. */
    async releaseHeld(now: number, perHour: number) {
      if (!(await db.get("SELECT 1 FROM leads WHERE status = 'held' LIMIT 1"))) return undefined;
      return db.transaction(
        async (tx) => {
          const last = num((await tx.get("SELECT max(admitted_at) AS at FROM leads WHERE admitted_at <= ?", [now + SKEW_MS]))?.at);
          if ((await admitted(tx, now)) >= perHour || (last !== null && last > now - HOUR_MS / perHour)) return undefined;
          const row = await fairest(tx, now);
          if (row)
            await tx.run("UPDATE leads SET status = 'pending', next_attempt_at = ?, admitted_at = ?, parked_reason = NULL WHERE id = ?", [
              now,
              now,
              String(row.id),
            ]);
          return row && { id: String(row.id), kind: row.kind as Lead["kind"] };
        },
        { exclusive: true },
      );
    },

    /** Parked (retry) or held (release) leads, all or those named, pending now with a fresh window; a restored one only when named (decision 0048). */
    requeue: (from: "parked" | "held", ids: string[], now: number) =>
      db.run(
        `UPDATE leads SET status = 'pending', attempts = 0, retry_ms = 0, next_attempt_at = ?, parked_at = NULL, parked_reason = NULL, parked_status = NULL
           WHERE status = ? AND ${ids.length > 0 ? `id IN (${ids.map(() => "?").join(", ")})` : `coalesce(parked_reason, '') <> '${RESTORED}'`}`,
        [now, from, ...ids],
      ),

    /** The store itself came back from a snapshot: what it cannot know to be delivered waits for the operator (decision 0048). */
    holdRestored: (now: number) =>
      db.run(
        `UPDATE leads SET status = 'parked', parked_at = ?, parked_reason = '${RESTORED}', parked_status = NULL, claimed_by = NULL, claimed_until = NULL
           WHERE status IN (${UNDELIVERED.map((status) => `'${status}'`).join(", ")})`,
        [now],
      ),

    /** Claims up to `limit` due leads for `leaseMs` of the lease clock; a retry time further ahead than the schedule ever waits means the wall clock jumped back: due. */
    async claimDue(now: number, limit: number, leaseMs: number): Promise<LeadRow[]> {
      if (limit <= 0) return [];
      const lease = await db.leaseNow();
      return db.transaction(async (tx) => {
        const rows = await tx.all(
          `UPDATE leads SET claimed_by = :owner, claimed_until = :until WHERE id IN (
             SELECT id FROM leads WHERE status = 'pending' AND (next_attempt_at <= :now OR next_attempt_at > :jumpedBack) AND NOT ${CLAIM_HOLDS}
             ORDER BY next_attempt_at LIMIT :limit {skip_locked}) RETURNING ${COLUMNS}, next_attempt_at`,
          { owner, until: lease + leaseMs, mine, lease, now, jumpedBack: now + MAX_DELAY_MS + 60_000, limit },
        );
        // In the order they fell due, as chosen: RETURNING keeps none (PostgreSQL's may be any).
        const at = (r: Row, column: string) => Number(r[column]);
        return rows.sort((a, b) => at(a, "next_attempt_at") - at(b, "next_attempt_at") || at(a, "first_accepted_at") - at(b, "first_accepted_at")).map(toRow);
      });
    },

    /** When the next pending lead is due, or its claim runs out (undefined: none pending), to sleep until then. */
    async nextDueAt(now: number): Promise<number | undefined> {
      const lease = await db.leaseNow();
      // A claim's end on the wall clock: as far from now as it is from the lease clock's now.
      const claimEnds = "claimed_until - :lease + :now";
      const row = await db.get(
        `SELECT min(CASE WHEN ${CLAIM_HOLDS} AND ${claimEnds} > next_attempt_at THEN ${claimEnds} ELSE next_attempt_at END) AS at
           FROM leads WHERE status = 'pending'`,
        { mine, lease, now },
      );
      return num(row?.at) ?? undefined;
    },

    /** Delivered: with no retention its text goes at once (the row stays a day, for the dedupe). */
    async delivered(id: string, now: number, retentionMs: number, record?: string) {
      // First, the CRM's id: it outlives the lead's row with its outcome (crm-outcomes.ts); a confirmation that comes late writes the same again.
      if (record) await db.run("UPDATE outcomes SET crm_record = ? WHERE reference = ?", [record, id]);
      return outcome(
        `status = 'delivered', delivered_at = :now, crm_record = coalesce(:record, crm_record), parked_at = NULL, parked_reason = NULL, parked_status = NULL${retentionMs === 0 ? ", payload = NULL" : ""}`,
        NOT_YET_DELIVERED,
        { id, now, record: record ?? null },
      );
    },
    retryLater: (id: string, now: number, delayMs: number) =>
      outcome("next_attempt_at = :next, retry_ms = retry_ms + :delayMs", UNDER_MY_CLAIM, { id, owner, next: now + delayMs, delayMs }),
    park: (id: string, now: number, reason: string, status?: number) =>
      outcome("status = 'parked', parked_at = :now, parked_reason = :reason, parked_status = :status", UNDER_MY_CLAIM, {
        id,
        owner,
        now,
        reason,
        status: status ?? null,
      }),
    /** The CRM's read-back (crm-outcomes.ts), one process at a time: false while another's claim holds. */
    async claimRead(leaseMs: number): Promise<boolean> {
      const lease = await db.leaseNow();
      return db.transaction(
        async (tx) => {
          await tx.run("INSERT INTO outcome_reads (name) VALUES ('crm') ON CONFLICT (name) DO NOTHING");
          const claim = `UPDATE outcome_reads SET claimed_by = :owner, claimed_until = :until WHERE name = 'crm' AND NOT ${CLAIM_HOLDS}`;
          return (await tx.run(claim, { owner, until: lease + leaseMs, mine, lease })) > 0;
        },
        { exclusive: true },
      );
    },
    releaseRead: () => db.run("UPDATE outcome_reads SET claimed_by = NULL, claimed_until = NULL WHERE name = 'crm' AND claimed_by = ?", [owner]),
    /** Lets this process's claims go (at a clean stop), so another process need not wait. */
    releaseClaims: () => db.run("UPDATE leads SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?", [owner]),

    get: async (id: string) => {
      const row = await db.get(`${SELECT} WHERE id = ?`, [id]);
      return row && toRow(row);
    },
    list: async (statuses: LeadStatus[]) =>
      (await db.all(`${SELECT} WHERE status IN (${statuses.map(() => "?").join(", ")}) ORDER BY first_accepted_at, id`, statuses)).map(toRow),
    /** Delivered leads a CRM keeps as records, still in this store. */
    inCrm: async () => (await db.all(`${SELECT} WHERE status = 'delivered' AND crm_record IS NOT NULL ORDER BY first_accepted_at, id`)).map(toRow),
    async stats(now: number) {
      const by = Object.fromEntries((await db.all("SELECT status, count(*) AS n FROM leads GROUP BY status")).map((r) => [String(r.status), Number(r.n)]));
      const oldest = num((await db.get("SELECT min(first_accepted_at) AS at FROM leads WHERE status = 'pending'"))?.at);
      // Why leads are held, and from how many address codes: a flood is many leads on few codes.
      const held = await db.all("SELECT coalesce(parked_reason, 'unknown') AS reason, count(*) AS n FROM leads WHERE status = 'held' GROUP BY 1");
      const codes = await count(db, "SELECT count(DISTINCT client_group) FROM leads WHERE status = 'held'", []);
      return {
        pending: by.pending ?? 0,
        held: by.held ?? 0,
        heldFor: Object.fromEntries(held.map((r) => [String(r.reason), Number(r.n)])),
        heldAddresses: codes,
        parked: by.parked ?? 0,
        delivered: by.delivered ?? 0,
        oldestPendingSeconds: oldest === null ? null : Math.max(0, Math.round((now - oldest) / 1000)),
      };
    },

    /** Retention: a delivered lead's text goes `retentionMs` after delivery, its row a day later at the soonest (the dedupe); an address code as the privacy notice says. */
    purge: (now: number, retentionMs: number) =>
      db.transaction(async (tx) => {
        const erased = await tx.run("UPDATE leads SET payload = NULL WHERE status = 'delivered' AND payload IS NOT NULL AND delivered_at <= ?", [
          now - retentionMs,
        ]);
        const removed = await tx.run("DELETE FROM leads WHERE status = 'delivered' AND delivered_at <= ?", [now - Math.max(retentionMs, DEDUPE_WINDOW_MS)]);
        await tx.run(
          "UPDATE leads SET client_group = NULL WHERE client_group IS NOT NULL AND status <> 'held' AND coalesce(admitted_at, first_accepted_at) <= ?",
          [now - ADDRESS_CODE_HOURS * HOUR_MS],
        );
        await purgeOutcomes(tx, now);
        return erased + removed;
      }),

    /**
     * Held or restored leads named by id or address code go, each handed to `each` first (the CLI
     * writes it out, outside any transaction: a slow reader never holds the lock). A name that is
     * none of theirs refuses all; one released meanwhile goes on (`read` > `gone`).
     */
    async discard(names: string[], each: (row: LeadRow) => unknown) {
      const list = names.map(() => "?").join(", ");
      const waiting = `(status = 'held' OR (status = 'parked' AND parked_reason = '${RESTORED}'))`;
      const rows = await db.all(`${SELECT} WHERE ${waiting} AND (id IN (${list}) OR client_group IN (${list})) ORDER BY first_accepted_at, id`, [
        ...names,
        ...names,
      ]);
      const unknown = names.filter((name) => !rows.some((r) => r.id === name || r.client_group === name));
      if (unknown.length > 0) throw new NotHeld(unknown);
      for (const row of rows.map(toRow)) await each(row);
      const gone = await db.run(
        `DELETE FROM leads WHERE ${waiting} AND id IN (${rows.map(() => "?").join(", ")})`,
        rows.map((r) => String(r.id)),
      );
      return { read: rows.length, gone };
    },

    /** A person's request (personal-data.ts): the lead goes, whatever its status; true when a send may still reach the service. */
    erase: (id: string) =>
      db.transaction(async (tx) => {
        const sending = await tx.get("SELECT 1 FROM leads WHERE id = ? AND status = 'pending' AND claimed_by IS NOT NULL", [id]);
        await tx.run("DELETE FROM leads WHERE id = ?", [id]);
        await eraseOutcome(tx, id);
        return sending !== undefined;
      }),

    /** Whether the store takes a large lead again after a fault: written and undone (one writing nothing passed on a full disk). */
    probe: () =>
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO leads (id, kind, payload, status, next_attempt_at, first_accepted_at) VALUES ('probe', 'contact', ?, 'delivered', 0, 0)", [
          "x".repeat(16_384),
        ]);
        await tx.run("DELETE FROM leads WHERE id = 'probe'");
      }),
  };
}
