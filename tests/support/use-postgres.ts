/** A test file's own PostgreSQL (postgres.ts), from before its first test to after its last: `const pg = usePostgres(); … pg().database("x")`. */
import { afterAll, beforeAll } from "vitest";
import { type Postgres, type PostgresOptions, startPostgres } from "./postgres";

export function usePostgres(options?: PostgresOptions): () => Postgres {
  let server: Postgres | undefined;
  // Beyond vitest's 10 s for a hook: initdb and a start on a slow, busy machine (postgres.ts's own limits say what went wrong).
  beforeAll(async () => {
    server = await startPostgres(options);
  }, 180_000);
  afterAll(() => server?.stop(), 60_000);
  return () => {
    if (!server) throw new Error("PostgreSQL is not running: usePostgres() is called at a file's or describe's top, its result in a test");
    return server;
  };
}
