/**
 * The one place SQLite and PostgreSQL differ (decision 0046): every store writes its SQL once, with
 * `?` or `:name` parameters and three words translated here (DIALECTS). SQLite waits out another
 * process's lock on a timer (decision 0039); every PostgreSQL query is bounded in time.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { accessSync, chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { setTimeout as pause } from "node:timers/promises";
import pg from "pg";
import { causeOf } from "./log";

export { causeOf };

export type Param = string | number | null;
/** `?` parameters in order, or `:name` ones by name (where a reader must tell the values apart). */
type Params = Param[] | Record<string, Param>;
export type Row = Record<string, unknown>;

/** What a store runs its SQL on: the database, or one transaction of it. */
export interface Sql {
  all(sql: string, params?: Params): Promise<Row[]>;
  get(sql: string, params?: Params): Promise<Row | undefined>;
  /** Runs a write; resolves with the rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
}

export interface Db extends Sql {
  engine: "sqlite" | "postgres";
  /** Where it is, for logs: the file, or the server and database (never a password). */
  where: string;
  /** `exclusive`: one at a time across processes (on PostgreSQL an advisory lock of that name), for a decision read and written together. */
  transaction<T>(work: (tx: Sql) => Promise<T>, options?: { exclusive?: true | "drafts" }): Promise<T>;
  /** The clock claims are measured on (decision 0046): on SQLite the host's monotonic clock, on PostgreSQL the database's. */
  leaseNow(): Promise<number>;
  /** What every claim on this clock is named with first: on SQLite the host's boot, so a claim from before a reboot never counts. */
  leasePrefix: string;
  /** Folds SQLite's WAL into the database (at start; close does too); nothing on PostgreSQL. */
  checkpoint(): Promise<void>;
  close(): Promise<void>;
  /** PostgreSQL's pool, for a library that keeps its own table there (rate-limiter-flexible). */
  pool?: pg.Pool;
}

/** Why a store could not be opened: the server refuses to start, saying so. */
export class StoreUnusable extends Error {
  constructor(
    readonly where: string,
    reason: string,
  ) {
    super(`the lead store ${where} cannot be used: ${reason}`);
    this.name = "StoreUnusable";
  }
}

/** Inside `db.transaction(work)` only `tx` may be used: `db` itself would wait on its own lock (SQLite) or run outside the transaction (PostgreSQL). */
class TransactionMisuse extends Error {
  constructor() {
    super("inside db.transaction, use its tx: a call on db itself runs outside the transaction");
    this.name = "TransactionMisuse";
  }
}

const DIALECTS = {
  sqlite: { "{int}": "INTEGER", "{strict}": " STRICT", "{skip_locked}": "" },
  postgres: { "{int}": "BIGINT", "{strict}": "", "{skip_locked}": "FOR UPDATE SKIP LOCKED" },
};
/** A `:name` parameter (not PostgreSQL's `::type` cast). */
const NAMED = /(?<!:):([a-z]\w*)/gi;
const dialect = (sql: string, engine: Db["engine"]) => sql.replace(/\{\w+\}/g, (word) => DIALECTS[engine][word as "{int}"] ?? word);
/** The SQL as PostgreSQL takes it: its parameters numbered ($1), `:name` ones given once each. */
function numbered(sql: string, params: Params = []): [string, Param[]] {
  const text = dialect(sql, "postgres");
  if (Array.isArray(params)) {
    let n = 0;
    return [text.replace(/\?/g, () => `$${++n}`), params];
  }
  const names: string[] = [];
  const replaced = text.replace(NAMED, (_, name: string) => {
    if (!names.includes(name)) names.push(name);
    return `$${names.indexOf(name) + 1}`;
  });
  return [replaced, names.map((name) => params[name] ?? null)];
}

/** DATABASE_URL set: PostgreSQL, shared by every store; else SQLite, `file` in the data folder. */
export const openDb = (where: { databaseUrl?: string; file: string }, options: SqliteOptions = {}): Db =>
  guarded(where.databaseUrl ? openPostgres(where.databaseUrl) : openSqlite(where.file, options));

/** The database whose transaction the current async context runs in, if any. */
const transactionOf = new AsyncLocalStorage<Db>();
function guarded(db: Db): Db {
  const outside =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (transactionOf.getStore() === db) throw new TransactionMisuse();
      return call(...args);
    };
  return {
    ...db,
    all: outside(db.all),
    get: outside(db.get),
    run: outside(db.run),
    leaseNow: outside(db.leaseNow),
    transaction: async (work, options) => {
      if (transactionOf.getStore() === db) throw new TransactionMisuse();
      return db.transaction((tx) => transactionOf.run(db, () => work(tx)), options);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// SQLite

const BUSY = 5; // SQLITE_BUSY (and its extended codes): another process holds a lock, for now
const isBusy = (error: unknown) => ((Number(causeOf(error).code) || 0) & 0xff) === BUSY;

/** `prepare` (a table made) run once, and again after it failed (a database down at the start) or when `key` changes. */
export function preparedOnce(prepare: () => Promise<unknown>, key: () => string = () => "") {
  let prepared: { key: string; done: Promise<unknown> } | undefined;
  return () => {
    if (prepared?.key !== key()) {
      const mine: { key: string; done: Promise<unknown> } = {
        key: key(),
        done: prepare().catch((error: unknown) => {
          if (prepared === mine) prepared = undefined;
          throw error;
        }),
      };
      prepared = mine;
    }
    return prepared.done;
  };
}

/** How long a call waits for another process's lock: a write holds it for milliseconds; held for seconds, the holder is stuck. */
export const BUSY_WAIT_MS = 3_000;

/** Runs `work`, and again while another process holds the lock, for up to `withinMs`, waiting on timers, never on the event loop (0039). */
async function retryWhileBusy<T>(work: () => T, withinMs = BUSY_WAIT_MS): Promise<T> {
  const deadline = performance.now() + withinMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      return work();
    } catch (error) {
      const left = deadline - performance.now();
      if (!isBusy(error) || left <= 0) throw error;
      await pause(Math.min(wait, left));
    }
  }
}

/**
 * The host's boot, which its monotonic clock (the lease clock on SQLite) belongs to. Where Linux
 * does not say, one name for every boot: a claim from before a reboot then stalls, never doubles.
 */
const BOOT = (() => {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
  } catch {
    return "boot";
  }
})();

interface SqliteOptions {
  /** FULL (each commit on disk: leads) or NORMAL (counts: a power cut may lose the last ones, never the file). */
  synchronous?: "FULL" | "NORMAL";
  /** SQLite's own blocking wait for a lock: 0 in the server; the operator's command, which has nothing else to do, waits. */
  timeout?: number;
  /** The schema version a file may have been written with; a newer one is refused, untouched. */
  version?: number;
  /** The folder is another's (where an operator keeps a backup: /tmp, a home): made 0700 if missing, an existing one keeps its mode. */
  foreignFolder?: boolean;
}

/** Opens (creating) the file, folder 0700 and files 0600; a damaged, newer or read-only one is refused at start, never "repaired". */
function openSqlite(file: string, { synchronous = "FULL", timeout = 0, version, foreignFolder = false }: SqliteOptions): Db {
  const unusable = (reason: string) => new StoreUnusable(file, reason);
  /** SQLite's own words for why, if it said. */
  const failed = (error: unknown, otherwise: string) => unusable(causeOf(error).cause ?? otherwise);
  const code = (error: unknown) => (error as { code?: string }).code ?? "EACCES";
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw unusable(`its folder cannot be made (${code(error)})`);
  }
  const exists = existsSync(file);
  if (exists && !statSync(file).isFile()) throw unusable("it is not a file");
  for (const path of [dirname(file), ...(exists ? [file] : [])]) {
    try {
      accessSync(path, constants.W_OK);
    } catch (error) {
      throw unusable(`${path === file ? "it" : "its folder"} is read-only (${code(error)})`);
    }
  }
  // Blocking waits here are the start's alone: the server serves nothing yet.
  const opened = (readOnly: boolean) => {
    try {
      return new DatabaseSync(file, { readOnly, timeout: Math.max(timeout, BUSY_WAIT_MS) });
    } catch (error) {
      throw failed(error, "it cannot be opened");
    }
  };
  if (exists) {
    const check = opened(true);
    try {
      const said = check.prepare("PRAGMA quick_check").all();
      if (said.map((row) => Object.values(row)[0]).join() !== "ok") throw unusable("SQLite's quick_check found damage");
      const written = Number(check.prepare("PRAGMA user_version").get()?.user_version);
      if (version !== undefined && written > version) throw unusable(`it was written by a newer version (schema ${written})`);
    } catch (error) {
      throw error instanceof StoreUnusable ? error : failed(error, "it cannot be read");
    } finally {
      check.close();
    }
  } else closeSync(openSync(file, "a", 0o600)); // made by us, so SQLite gives -wal and -shm its mode
  for (const path of [...(foreignFolder ? [] : [dirname(file)]), file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(path, path === dirname(file) ? 0o700 : 0o600);
    } catch {
      // -wal and -shm exist only while a connection is open
    }
  }
  const db = opened(false);
  // Turning a new file to WAL while another process writes it (two servers starting on one new folder) is refused at once,
  // without SQLite's wait: waited for here, as long. Then busy_timeout: the server's calls wait on timers instead.
  for (const until = Date.now() + Math.max(timeout, BUSY_WAIT_MS); ; Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)) {
    try {
      db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous}; PRAGMA secure_delete = ON; PRAGMA busy_timeout = ${timeout}`);
      break;
    } catch (error) {
      if (isBusy(error) && Date.now() < until) continue;
      db.close();
      throw failed(error, "it cannot be opened");
    }
  }

  const statement = (sql: string) => db.prepare(dialect(sql, "sqlite"));
  /** node:sqlite binds `?` parameters given in order, and `:name` ones given as one object. */
  const bind = (params: Params) => (Array.isArray(params) ? params : [params]) as Param[];
  /** Another call of this process inside a transaction is as busy as another process's lock. */
  const free = <T>(work: () => T): T => {
    if (db.isTransaction) throw Object.assign(new Error("the connection is in a transaction"), { errcode: BUSY });
    return work();
  };
  const sql = (call: <T>(work: () => T) => Promise<T>): Sql => ({
    all: (text, params = []) => call(() => statement(text).all(...bind(params))),
    get: (text, params = []) => call(() => statement(text).get(...bind(params))),
    run: (text, params = []) => call(() => Number(statement(text).run(...bind(params)).changes)),
  });
  const fold = () => {
    try {
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {
      // not needed for correctness (the WAL is the data until then): a full disk or a lock postpones it
    }
  };
  return {
    engine: "sqlite",
    where: file,
    ...sql((work) => retryWhileBusy(() => free(work))),
    // BEGIN IMMEDIATE takes the write lock first, so what it reads is current; its statements run at once.
    transaction: async (work) => {
      await retryWhileBusy(() => free(() => db.exec("BEGIN IMMEDIATE")));
      try {
        const result = await work(sql(async (run) => run()));
        db.exec("COMMIT");
        return result;
      } catch (error) {
        if (db.isOpen && db.isTransaction) db.exec("ROLLBACK");
        throw error;
      }
    },
    leaseNow: async () => Number(process.hrtime.bigint() / 1_000_000n),
    leasePrefix: `${BOOT}/`,
    checkpoint: async () => fold(),
    close: async () => {
      if (!db.isOpen) return;
      fold();
      db.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** Whatever holds PostgreSQL (down, paused, a lock another container keeps), a call fails within seconds. */
const PG_LIMITS = {
  connectionTimeoutMillis: 2_000,
  query_timeout: 3_000,
  // Server-side too: a container paused mid-transaction (SIGSTOP) lets its locks go.
  options: "-c statement_timeout=3000 -c lock_timeout=2000 -c idle_in_transaction_session_timeout=10000",
  keepAlive: true,
};

function openPostgres(url: string): Db {
  // BIGINT (times in ms, counts) as numbers: every value this site keeps is far below 2^53.
  const types = { getTypeParser: (oid: number, format?: string) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as "text")) };
  const pool = new pg.Pool({ connectionString: url, max: 8, ...PG_LIMITS, types });
  // A connection lost while idle (PostgreSQL restarted): the pool drops it; the next call connects again.
  pool.on("error", () => undefined);
  // Lost while checked out, a client's 'error' would otherwise end the process: its calls fail instead.
  pool.on("connect", (client) => client.on("error", () => undefined));
  const query = (client: pg.Pool | pg.PoolClient, sql: string, params?: Params) => client.query<Row>(...numbered(sql, params));
  const on = (client: pg.Pool | pg.PoolClient): Sql => ({
    all: async (sql, params) => (await query(client, sql, params)).rows,
    get: async (sql, params) => (await query(client, sql, params)).rows[0],
    run: async (sql, params) => (await query(client, sql, params)).rowCount ?? 0,
  });
  const { host, pathname } = new URL(url);
  return {
    engine: "postgres",
    where: `${host}${pathname}`,
    ...on(pool),
    async transaction(work, { exclusive } = {}) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        if (exclusive) await client.query("SELECT pg_advisory_xact_lock(4046, hashtext($1))", [exclusive === true ? "site" : exclusive]);
        const result = await work(on(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        // Bounded: behind a query that timed out it would wait as long again; a dropped connection rolls back too.
        const rollback = { text: "ROLLBACK", query_timeout: 500 } as pg.QueryConfig;
        await client.query(rollback).catch((lost: Error) => (broken = lost));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    leaseNow: async () => Number((await pool.query("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now")).rows[0].now),
    leasePrefix: "",
    checkpoint: async () => undefined,
    // Within the stop's budget (decision 0040): a pool whose server is paused never ends.
    close: () => Promise.race([pool.end(), pause(500, undefined, { ref: false })]),
    pool,
  };
}
