/**
 * A test file's own PostgreSQL under vitest (postgres.ts): started before its first test,
 * stopped after its last, pass or fail. Its tests can share the cluster and each take a database
 * of its own: `const pg = usePostgres(); … const url = await pg().database("drafts")`.
 */
import { afterAll, beforeAll } from "vitest";
import { type Postgres, type PostgresOptions, startPostgres } from "./postgres";

export function usePostgres(options?: PostgresOptions): () => Postgres {
  let server: Postgres | undefined;
  // Beyond vitest's 10 s for a hook: initdb and a start on a machine four times slower, on a
  // busy run (postgres.ts's own limits, which then say what went wrong).
  beforeAll(async () => {
    server = await startPostgres(options);
  }, 180_000);
  afterAll(() => server?.stop(), 60_000);
  return () => {
    if (!server) throw new Error("PostgreSQL is not running: usePostgres() is called at a file's or describe's top, its result in a test");
    return server;
  };
}
