/** server/db.ts on a real PostgreSQL (tests/support/postgres.ts): what a lost connection does to the server. */
import { afterEach, expect, it } from "vitest";
import { usePostgres } from "../tests/support/use-postgres";
import { type Db, openDb } from "./db";

const pg = usePostgres();
const opened: Db[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

it("a connection PostgreSQL ends while a transaction holds it fails that transaction, not the process, and the next call connects again", async () => {
  const url = await pg().database("lost");
  const db = openDb({ databaseUrl: url, file: "" });
  opened.push(db);
  const other = openDb({ databaseUrl: url, file: "" });
  opened.push(other);
  // Between two statements of a transaction (its connection out of the pool), the server ends
  // the connection (a restart, an administrator, a failover): the client says so with an
  // 'error' event, which with no listener of its own is an uncaught exception, the end of the server.
  const failed = db.transaction(async (tx) => {
    const pid = Number((await tx.get("SELECT pg_backend_pid() AS pid"))?.pid);
    await other.get("SELECT pg_terminate_backend(?::int)", [pid]);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the termination's message arrives meanwhile
    return tx.get("SELECT 1 AS one");
  });
  await expect(failed).rejects.toThrow();
  expect(await db.get("SELECT 2 AS two")).toEqual({ two: 2 });
});
