/**
 * For server/leads/cli.test.ts and server/personal-data.test.ts: `npm run leads` run in the test's
 * process, and a lead store as a running server has it (SQLite in a data folder, or a PostgreSQL
 * database), open beside the command until the test ends. Kept here, out of server/, whose
 * non-test lines issue 40 counts.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onTestFinished } from "vitest";
import { openDb } from "../../server/db";
import { runCli } from "../../server/leads/cli";
import { leadStore, prepareStore } from "../../server/leads/store";

/** What the command printed, line by line, and its exit code. `ask`: the terminal's answer (none: no terminal). */
export async function leads(argv: string[], env: Record<string, string>, ask?: (question: string) => Promise<boolean>) {
  const [out, err] = [[] as string[], [] as string[]];
  const code = await runCli(
    argv,
    env,
    (line) => out.push(line),
    (line) => err.push(line),
    ask,
  );
  return { code, out, err };
}

/**
 * A data folder and a server's connection to its store: SQLite's leads.db there, or with
 * `databaseUrl` that PostgreSQL database. `env` is the command's (DATA_DIR, DATABASE_URL).
 */
export async function serverStore(databaseUrl?: string) {
  const dir = await mkdtemp(join(tmpdir(), "leads-"));
  const db = openDb({ databaseUrl, file: join(dir, "leads.db") });
  onTestFinished(() => db.close());
  await prepareStore(db);
  const env: Record<string, string> = databaseUrl ? { DATA_DIR: dir, DATABASE_URL: databaseUrl } : { DATA_DIR: dir };
  return { dir, db, store: leadStore(db), env };
}
