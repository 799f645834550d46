/**
 * The lead store's two engines for a unit test file (decision 0046): SQLite in a data folder of
 * the test's own, PostgreSQL in a schema of the test's own in the file's cluster (one cluster a
 * file: usePostgres). Every Db a test opens is closed when it ends, pass or fail.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { expect, onTestFinished, type TestContext } from "vitest";
import { openDb, type Db } from "../../server/db";
import type { LeadStats } from "../../server/leads/types";
import { until } from "./quiet-log";
import { usePostgres } from "./use-postgres";

export const ENGINES = ["sqlite", "postgres"] as const;
export type Engine = (typeof ENGINES)[number];
/** Where a store is, as the server is told: `file` (DATA_DIR/leads.db), and `databaseUrl` for PostgreSQL. */
export type Place = { file: string; databaseUrl?: string };

let places = 0;

export function leadDatabases() {
  const cluster = usePostgres();
  let database: Promise<string> | undefined;
  return {
    cluster,
    /**
     * A fresh store's place: a data folder of its own, and for PostgreSQL a role of its own whose schema the default
     * search_path ("$user", public) puts first: a database each would cost most of a second a test (CREATE DATABASE copies).
     */
    async place(engine: Engine): Promise<Place> {
      const file = join(mkdtempSync(join(tmpdir(), "leads-")), "data", "leads.db");
      if (engine === "sqlite") return { file };
      const url = new URL(await (database ??= cluster().database("leads")));
      const role = `leads_${++places}`;
      const admin = new pg.Client({ connectionString: url.href });
      await admin.connect();
      await admin.query(`CREATE ROLE ${role} LOGIN; CREATE SCHEMA ${role} AUTHORIZATION ${role}`).finally(() => admin.end());
      url.username = role;
      return { file, databaseUrl: url.href };
    },
    /**
     * Opens `place` as a process of its own would (its own connection or pool); closed when the
     * test ends, unless the test closed it (a pool ends once). `t`: a concurrent test's context.
     */
    open(place: Place, t?: TestContext): Db {
      const db = openDb(place);
      let closed: Promise<void> | undefined;
      const opened = { ...db, close: () => (closed ??= db.close()) };
      (t?.onTestFinished ?? onTestFinished)(() => opened.close());
      return opened;
    },
  };
}

/** Waits until a queue reports `expected` (its counts follow each look in a moment), then asserts it, naming what it reported. */
export async function reports(queue: { stats(): LeadStats }, expected: Partial<LeadStats>, ms = 8_000) {
  const matches = () => Object.entries(expected).every(([name, value]) => queue.stats()[name as keyof LeadStats] === value);
  await until(matches, ms).catch(() => undefined);
  expect(queue.stats()).toMatchObject(expected);
}
