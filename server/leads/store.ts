/**
 * The embedded lead store: the leads' rows in one SQLite database (database.ts) in the data folder.
 * Several processes may share it: SQLite's locks serialise writers, and a delivery is claimed for a
 * while (a lease on the host's monotonic clock) so two processes never attempt the same lead at once.
 */
import { randomUUID } from "node:crypto";
import type { DatabaseSync } from "node:sqlite";
import { ADDRESS_CODE_HOURS } from "~/content/privacy";
import { systemClock, type Clock } from "./clock";
import { inTransaction, openDatabase, VERSION } from "./database";
import { DEDUPE_WINDOW_MS, MAX_DELAY_MS, PER_ADDRESS } from "./schedule";
import type { Lead, StoredLead } from "./types";

/** `handed`: queued in Redis, kept here with its text until its delivery is confirmed (decision 0023). */
type LeadStatus = "pending" | "held" | "parked" | "delivered" | "handed";

export interface LeadRow {
  id: string;
  kind: Lead["kind"];
  status: LeadStatus;
  attempts: number;
  firstAcceptedAt: number;
  /** The retry window: scheduled waits so far (a clock jump cannot make it grow). */
  retryMs: number;
  deliveredAt: number | null;
  parkedReason: string | null;
  /** What makes two posts the same form (schedule.ts, leadKey). */
  key: string | null;
  /** The id of the record the CRM keeps the lead as (Zoho CRM), once delivered there. */
  record: string | null;
  /** The lead as the agency receives it; null once erased (retention) or unreadable. */
  lead: StoredLead | null;
}

const SELECT = "SELECT id, kind, status, attempts, first_accepted_at, retry_ms, delivered_at, parked_reason, dedupe_key, crm_record, payload FROM leads";

function toRow(r: Record<string, unknown>): LeadRow {
  const base = {
    id: String(r.id),
    kind: r.kind as Lead["kind"],
    status: r.status as LeadStatus,
    attempts: Number(r.attempts),
    firstAcceptedAt: Number(r.first_accepted_at),
    retryMs: Number(r.retry_ms),
    deliveredAt: r.delivered_at === null ? null : Number(r.delivered_at),
    parkedReason: (r.parked_reason as string | null) ?? null,
    key: (r.dedupe_key as string | null) ?? null,
    record: (r.crm_record as string | null) ?? null,
  };
  if (r.payload === null) return { ...base, lead: null };
  try {
    const lead = JSON.parse(String(r.payload)) as Omit<Lead, "kind">;
    return { ...base, lead: { ...lead, kind: base.kind, id: base.id, acceptedAt: base.firstAcceptedAt } };
  } catch {
    return { ...base, lead: null };
  }
}

/**
 * The bound on one address (PER_ADDRESS.held) is reached: nothing was stored. The visitor is told
 * so, truthfully; the address's held leads go out at its pace and make room again.
 */
export class AddressFull extends Error {
  constructor() {
    super("this address already has as many leads held as it may");
    this.name = "AddressFull";
  }
}

export interface InsertResult {
  id: string;
  /** The same form was already stored: its lead's id, nothing new written. */
  duplicate: boolean;
  /** Stored, but held: over the hourly ceiling, or over its address's share (until it has room again, or a release). */
  held: boolean;
  /** Why it is held: the site-wide ceiling, or its address's share (decision 0031). */
  heldFor?: "ceiling" | "address";
  /** The first lead held since none was: the moment to tell the operator. */
  firstHeld: boolean;
}

export type LeadStore = ReturnType<typeof openStore>;
type HeldLead = { id: string; kind: Lead["kind"] };

/**
 * Opens the store at `file` (openDatabase: StoreUnusable if it cannot be used). `clock`: the host's
 * monotonic clock and its boot, which claims are measured on. `timeout`: SQLite's own, blocking wait
 * for another process's lock (openDatabase); the server's is 0, and it waits with retryWhileBusy.
 */
export function openStore(file: string, clock: Pick<Clock, "monotonic" | "boot"> = systemClock, { timeout = 0 }: { timeout?: number } = {}) {
  const db = openDatabase(file, { timeout });
  const sql = queries(db);
  const delivery = deliveries(db, sql, clock);
  return { ...intake(db, sql), ...delivery, ...handedToRedis(db, sql, delivery.delivered), ...reading(db), ...upkeep(db, sql) };
}

const HOUR_MS = 3_600_000;

/** The counts and the ranking the ceiling and the address shares are decided by (decision 0031). */
function queries(db: DatabaseSync) {
  const count = (sql: string, ...params: (string | number)[]) => Number(Object.values(db.prepare(sql).get(...params) ?? {})[0] ?? 0);
  /** Leads the ceiling let through in the last hour (held ones are not; a time ahead of the clock is not counted). */
  const admitted = (now: number) => count("SELECT count(*) FROM leads WHERE admitted_at > ? AND admitted_at <= ?", now - HOUR_MS, now);
  /** Leads of one address let through in its window, and held now (decision 0031). */
  const ofAddress = (group: string, now: number) => ({
    admitted: count("SELECT count(*) FROM leads WHERE client_group = ? AND admitted_at > ? AND admitted_at <= ?", group, now - PER_ADDRESS.windowMs, now),
    held: count("SELECT count(*) FROM leads WHERE client_group = ? AND status = 'held'", group),
  });
  /**
   * The held lead to let go next, fairly (decision 0031): of the held leads whose address has
   * room in its window, the one with the fewest leads of its address in the hour before it (a
   * flood's tenth lead waits behind everyone's first), then the address with fewer held, then
   * the oldest. Only each address's oldest held lead can be that one, so only those are ranked
   * (a flood of many addresses costs one look per address, not per lead). A lead stored without
   * an address (before schema 4) counts as an address of its own.
   */
  const fairest = (now: number): HeldLead | null => {
    const row = db
      .prepare(
        `WITH firsts AS (
           SELECT id, kind, client_group AS address, min(first_accepted_at) AS first, rowid AS rid, count(*) AS held
             FROM leads WHERE status = 'held' AND client_group IS NOT NULL GROUP BY client_group
           UNION ALL
           SELECT id, kind, NULL, first_accepted_at, rowid, 1 FROM leads WHERE status = 'held' AND client_group IS NULL
         )
         SELECT id, kind FROM firsts f
         WHERE address IS NULL OR (SELECT count(*) FROM leads a WHERE a.client_group = f.address AND a.admitted_at > ? AND a.admitted_at <= ?) < ?
         ORDER BY
           (SELECT count(*) FROM leads b WHERE b.client_group = f.address AND b.first_accepted_at > f.first - ?
              AND (b.first_accepted_at < f.first OR (b.first_accepted_at = f.first AND b.rowid < f.rid))),
           held, first, rid
         LIMIT 1`,
      )
      .get(now - PER_ADDRESS.windowMs, now, PER_ADDRESS.letThrough, HOUR_MS);
    return row ? { id: String(row.id), kind: row.kind as Lead["kind"] } : null;
  };
  return { count, admitted, ofAddress, fairest, transaction: <T>(work: () => T) => inTransaction(db, work) };
}
type Queries = ReturnType<typeof queries>;

/** Leads coming in: stored (or held, or refused by their address's bound), and held ones let go. */
function intake(db: DatabaseSync, { count, admitted, ofAddress, fairest, transaction }: Queries) {
  /** A held lead let through (by this store's ceiling, or the shared one in Redis): pending now, counted from now. */
  const admitHeld = (id: string, now: number) =>
    db.prepare("UPDATE leads SET status = 'pending', next_attempt_at = ?, admitted_at = ? WHERE id = ? AND status = 'held'").run(now, now, id).changes > 0;
  return {
    /**
     * Stores a lead in one transaction: the same form seen within the dedupe window answers the
     * first one's id; with `perHour` leads let through in the last hour, or its address's share
     * (`group`, decision 0031) let through in its window, the new one is held; with its address's
     * bound held already, AddressFull is thrown and nothing is stored.
     */
    insert(
      lead: Lead,
      { id, key, now, perHour, group = null }: { id: string; key: string; now: number; perHour: number; group?: string | null },
    ): InsertResult {
      return transaction(() => {
        const seen = db
          .prepare("SELECT id FROM leads WHERE dedupe_key = ? AND first_accepted_at > ? ORDER BY first_accepted_at LIMIT 1")
          .get(key, now - DEDUPE_WINDOW_MS);
        if (seen) return { id: String(seen.id), duplicate: true, held: false, firstHeld: false };
        const address = group === null ? { admitted: 0, held: 0 } : ofAddress(group, now);
        if (address.held >= PER_ADDRESS.held) throw new AddressFull();
        const heldFor = address.admitted >= PER_ADDRESS.letThrough ? "address" : admitted(now) >= perHour ? "ceiling" : undefined;
        const held = heldFor !== undefined;
        const firstHeld = held && count("SELECT count(*) FROM leads WHERE status = 'held'") === 0;
        const { kind, ...payload } = lead;
        db.prepare(
          "INSERT INTO leads (id, kind, payload, dedupe_key, status, next_attempt_at, first_accepted_at, admitted_at, client_group) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ).run(id, kind, JSON.stringify(payload), key, held ? "held" : "pending", now, now, held ? null : now, group);
        return { id, duplicate: false, held, heldFor, firstHeld };
      });
    },

    /** Whether a new lead of this address would be held or refused by its share alone (with Redis: before the shared ceiling is asked). */
    addressBusy(group: string, now: number): boolean {
      const address = ofAddress(group, now);
      return address.admitted >= PER_ADDRESS.letThrough || address.held >= PER_ADDRESS.held;
    },

    /**
     * The ceiling lets a held lead go once the last hour has room for it and the last lead let
     * through is an hour / `perHour` old (the ceiling's own pace): the fairest one whose address
     * has room (decision 0031). Returns it, or null.
     */
    releaseHeld(now: number, perHour: number): HeldLead | null {
      if (!db.prepare("SELECT 1 FROM leads WHERE status = 'held' LIMIT 1").get()) return null;
      return transaction(() => {
        const last = db.prepare("SELECT max(admitted_at) AS at FROM leads WHERE admitted_at <= ?").get(now)?.at;
        if (admitted(now) >= perHour || (last !== null && last !== undefined && Number(last) > now - HOUR_MS / perHour)) return null;
        const row = fairest(now);
        if (row) admitHeld(row.id, now);
        return row;
      });
    },

    /** The held lead to offer the shared ceiling (in Redis) next: the fairest whose address has room, or null. */
    nextHeld: fairest,

    admitHeld,

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
  };
}

/**
 * Deliveries from this store (the embedded queue): claimed for a lease on the host's monotonic
 * clock, so two processes never attempt the same lead at once, then their outcome written down.
 */
function deliveries(db: DatabaseSync, { transaction }: Queries, { monotonic, boot }: Pick<Clock, "monotonic" | "boot">) {
  // A claim names its owner after the boot whose monotonic clock measures it.
  const mine = `${boot}/`;
  const owner = `${mine}${randomUUID()}`;
  /** A row's claim that still holds: this boot's, and not run out. Parameters: mine, mine, now (monotonic). */
  const CLAIMED = "(claimed_by IS NOT NULL AND substr(claimed_by, 1, length(?)) = ? AND coalesce(claimed_until, 0) > ?)";

  /** Delivered (with Redis: confirmed): with no retention, its text goes at once (the row stays a day, for the dedupe). */
  function delivered(id: string, now: number, retentionMs: number, record?: string) {
    const erase = retentionMs === 0 ? ", payload = NULL" : "";
    db.prepare(
      `UPDATE leads SET status = 'delivered', delivered_at = ?, attempts = attempts + 1, claimed_by = NULL, claimed_until = NULL, crm_record = coalesce(?, crm_record)${erase} WHERE id = ? AND status IN ('pending', 'handed')`,
    ).run(now, record ?? null, id);
  }

  return {
    /**
     * Claims up to `limit` pending leads that are due, for `leaseMs` of the host's monotonic clock:
     * a claim is never taken from its owner before that, whatever the wall clock does. A retry
     * time far in the future counts as due: the schedule never waits longer than MAX_DELAY_MS, so
     * the wall clock jumped back, and a lead must not wait for it to catch up.
     */
    claimDue(now: () => number, limit: number, leaseMs: number): LeadRow[] {
      if (limit <= 0) return [];
      return transaction(() => {
        // Read once the write lock is ours, so another process's claim made meanwhile is current.
        const [wall, mono] = [now(), monotonic()];
        const rows = db
          .prepare(`${SELECT} WHERE status = 'pending' AND (next_attempt_at <= ? OR next_attempt_at > ?) AND NOT ${CLAIMED} ORDER BY next_attempt_at LIMIT ?`)
          .all(wall, wall + MAX_DELAY_MS + 60_000, mine, mine, mono, limit)
          .map(toRow);
        const claim = db.prepare("UPDATE leads SET claimed_by = ?, claimed_until = ? WHERE id = ?");
        for (const row of rows) claim.run(owner, mono + leaseMs, row.id);
        return rows;
      });
    },

    /** When the next pending lead is due, or its claim runs out (null: none pending), to sleep until then. */
    nextDueAt(now: number): number | null {
      const row = db
        .prepare(
          `SELECT min(CASE WHEN ${CLAIMED} THEN max(next_attempt_at, ? + claimed_until - ?) ELSE next_attempt_at END) AS at FROM leads WHERE status = 'pending'`,
        )
        .get(mine, mine, monotonic(), now, monotonic());
      return row?.at === null || row?.at === undefined ? null : Number(row.at);
    },

    delivered,

    retryLater(id: string, now: number, delayMs: number) {
      db.prepare(
        "UPDATE leads SET attempts = attempts + 1, next_attempt_at = ?, retry_ms = retry_ms + ?, claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status = 'pending' AND claimed_by = ?",
      ).run(now + delayMs, delayMs, id, owner);
    },

    park(id: string, now: number, reason: string, status?: number) {
      db.prepare(
        "UPDATE leads SET status = 'parked', attempts = attempts + 1, parked_at = ?, parked_reason = ?, parked_status = ?, claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status IN ('pending', 'handed')",
      ).run(now, reason, status ?? null, id);
    },

    /** Lets claims of this process go (at a clean stop), so another process need not wait. */
    releaseClaims() {
      db.prepare("UPDATE leads SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ?").run(owner);
    },
  };
}

/** With Redis (decision 0023, 0033): leads handed over and kept until confirmed, and those this container sent for another. */
function handedToRedis(db: DatabaseSync, { transaction }: Queries, delivered: (id: string, now: number, retentionMs: number, record?: string) => void) {
  return {
    /**
     * With Redis, this container sent a lead: its own record says delivered; a lead from another
     * container's record is kept (its id) until that container has confirmed it (decision 0033).
     */
    sent(id: string, now: number, retentionMs: number, record?: string) {
      transaction(() => {
        delivered(id, now, retentionMs, record);
        if (!db.prepare("SELECT 1 FROM leads WHERE id = ?").get(id))
          db.prepare("INSERT OR IGNORE INTO delivered_for_others (id, delivered_at) VALUES (?, ?)").run(id, now);
      });
    },

    /** Whether this container knows the lead was delivered: its own record says so, or it sent it for another. */
    knownDelivered(id: string): boolean {
      return (
        db.prepare("SELECT 1 FROM leads WHERE id = ? AND status = 'delivered'").get(id) !== undefined ||
        db.prepare("SELECT 1 FROM delivered_for_others WHERE id = ?").get(id) !== undefined
      );
    },

    /** Other containers' leads this one delivered and has not yet seen confirmed. */
    sentForOthers(): { id: string; deliveredAt: number }[] {
      return db
        .prepare("SELECT id, delivered_at FROM delivered_for_others ORDER BY delivered_at")
        .all()
        .map((r) => ({ id: String(r.id), deliveredAt: Number(r.delivered_at) }));
    },

    /** The container whose record holds it has confirmed it (or it is too old to matter). */
    heardOf(id: string) {
      db.prepare("DELETE FROM delivered_for_others WHERE id = ?").run(id);
    },

    /** Queued in Redis: kept, with its text, until its delivery is confirmed (or it must be queued again). */
    handed(id: string) {
      db.prepare("UPDATE leads SET status = 'handed', claimed_by = NULL, claimed_until = NULL WHERE id = ? AND status = 'pending'").run(id);
    },

    /** The same form was queued by another lead first (with Redis): that one is the lead. */
    forget(id: string) {
      db.prepare("DELETE FROM leads WHERE id = ? AND status IN ('pending', 'handed')").run(id);
    },

    /** Leads handed to Redis and not yet confirmed delivered, without their text: what to ask Redis about. */
    handedKeys(): { id: string; kind: Lead["kind"]; key: string }[] {
      return db
        .prepare("SELECT id, kind, coalesce(dedupe_key, id) AS key FROM leads WHERE status = 'handed' ORDER BY first_accepted_at, rowid")
        .all()
        .map((r) => ({ id: String(r.id), kind: r.kind as Lead["kind"], key: String(r.key) }));
    },
  };
}

/** What the operator's command and stats() read. */
function reading(db: DatabaseSync) {
  return {
    get(id: string): LeadRow | undefined {
      const row = db.prepare(`${SELECT} WHERE id = ?`).get(id);
      return row && toRow(row);
    },

    /** Delivered leads a CRM keeps as records, still in this store: which record each became. */
    inCrm(): LeadRow[] {
      return db.prepare(`${SELECT} WHERE status = 'delivered' AND crm_record IS NOT NULL ORDER BY first_accepted_at, rowid`).all().map(toRow);
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
        handed: by.handed ?? 0,
        delivered: by.delivered ?? 0,
        oldestPendingSeconds: oldest === null || oldest === undefined ? null : Math.max(0, Math.round((now - Number(oldest)) / 1000)),
      };
    },
  };
}

/** Retention, a person's request, the probe after a fault, and the file's own care. */
function upkeep(db: DatabaseSync, { count, transaction }: Queries) {
  return {
    /**
     * Retention: a delivered lead's text is erased `retentionMs` after delivery, and its row (id,
     * kind, dedupe key, times) with it, but never less than a day after delivery, so a replay
     * within the day still finds it. Parked and held leads are kept until the operator acts (or
     * the ceiling lets them go), handed ones until their delivery is confirmed.
     */
    purge(now: number, retentionMs: number): number {
      return transaction(() => {
        const erased = db
          .prepare("UPDATE leads SET payload = NULL WHERE status = 'delivered' AND payload IS NOT NULL AND delivered_at <= ?")
          .run(now - retentionMs).changes;
        const removed = db
          .prepare("DELETE FROM leads WHERE status = 'delivered' AND delivered_at <= ?")
          .run(now - Math.max(retentionMs, DEDUPE_WINDOW_MS)).changes;
        // An address's code goes as long after its lead was let through as the privacy notice says (decision 0031).
        db.prepare(
          "UPDATE leads SET client_group = NULL WHERE client_group IS NOT NULL AND status <> 'held' AND coalesce(admitted_at, first_accepted_at) <= ?",
        ).run(now - ADDRESS_CODE_HOURS * HOUR_MS);
        return Number(erased) + Number(removed);
      });
    },

    /**
     * A person's request (server/leads/personal-data.ts): these leads go outright, text and row,
     * whatever their status. This connection overwrites what it deletes (secure_delete:
     * openDatabase), so the text leaves the database's pages; the WAL still holds it until
     * emptyWal(). `sending`: those a delivery had claimed (a claim still held, or one a stopped
     * process left), whose send may still reach the service.
     */
    erase(ids: string[]): { erased: number; sending: string[] } {
      return transaction(() => {
        let erased = 0;
        const sending: string[] = [];
        for (const id of ids) {
          if (count("SELECT count(*) FROM leads WHERE id = ? AND status = 'pending' AND claimed_by IS NOT NULL", id) > 0) sending.push(id);
          erased += Number(db.prepare("DELETE FROM leads WHERE id = ?").run(id).changes);
        }
        return { erased, sending };
      });
    },

    /**
     * Folds the WAL into the database and empties the file (TRUNCATE), so text just erased is left
     * in neither. False while another connection reads (a server's statement) or checkpoints:
     * the WAL may still hold it then, and the caller tries again.
     */
    emptyWal(): boolean {
      try {
        const row = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get();
        return Number(row?.busy) === 0 && Number(row?.log) === 0;
      } catch {
        return false;
      }
    },

    /** A write that changes nothing, to learn whether the store takes writes again (after a fault). */
    probe() {
      transaction(() => db.exec(`PRAGMA user_version = ${VERSION}`));
    },

    /** Folds the WAL into the database (at start and at a clean stop); a full disk, or another process's lock or read, only postpones it. */
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
