/** server/db.ts on both engines: what a transaction's work may call, and what a lost connection does to the server. */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { expect, it, onTestFinished } from "vitest";
import { ENGINES, leadDatabases } from "../tests/support/engines";

const { place, open } = leadDatabases();

it.each(ENGINES)("inside a transaction, a call on the database itself throws TransactionMisuse, and the transaction rolls back (%s)", async (engine) => {
  const db = open(await place(engine));
  await db.run("CREATE TABLE t (n {int})");
  const misuse = db.transaction(async (tx) => {
    await tx.run("INSERT INTO t (n) VALUES (1)");
    return db.get("SELECT count(*) AS n FROM t");
  });
  await expect(misuse).rejects.toMatchObject({ name: "TransactionMisuse" });
  await expect(db.transaction(async () => db.transaction(async () => undefined))).rejects.toMatchObject({ name: "TransactionMisuse" });
  expect(await db.get("SELECT count(*) AS n FROM t")).toEqual({ n: 0 });
});

it("a connection PostgreSQL ends while a transaction holds it fails that transaction, not the process, and the next call connects again", async () => {
  const where = await place("postgres");
  const [db, other] = [open(where), open(where)];
  // The server ends a transaction's connection between two statements (a restart, a failover): the client's 'error'
  // event, with no listener of its own, would be an uncaught exception, the end of the server.
  const failed = db.transaction(async (tx) => {
    const pid = Number((await tx.get("SELECT pg_backend_pid() AS pid"))?.pid);
    await other.get("SELECT pg_terminate_backend(?::int)", [pid]);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the termination's message arrives meanwhile
    return tx.get("SELECT 1 AS one");
  });
  await expect(failed).rejects.toThrow();
  expect(await db.get("SELECT 2 AS two")).toEqual({ two: 2 });
});

it("a new SQLite file another process is writing is opened once its lock goes: two servers started at once on one new folder both start", async () => {
  const { file } = await place("sqlite");
  mkdirSync(dirname(file), { recursive: true });
  // The other process is in the file's first write, before WAL: SQLite refuses the change to WAL at once, without its lock wait.
  const holder = spawn(process.execPath, ["-e", HOLDS_A_WRITE_FOR_HALF_A_SECOND, file], { stdio: ["ignore", "pipe", "inherit"] });
  onTestFinished(() => void holder.kill());
  await once(holder.stdout, "data");
  const db = open({ file });
  expect(await db.get("PRAGMA journal_mode")).toEqual({ journal_mode: "wal" });
});

const HOLDS_A_WRITE_FOR_HALF_A_SECOND = `
  const db = new (require("node:sqlite").DatabaseSync)(process.argv[1]);
  db.exec("BEGIN IMMEDIATE; CREATE TABLE t (n)");
  process.stdout.write("holding");
  setTimeout(() => db.exec("COMMIT"), 500);`;
