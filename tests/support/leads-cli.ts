/**
 * For server/leads/cli.test.ts and server/personal-data.test.ts: `npm run leads` run in the test's
 * process, and a lead store as a running server has it (SQLite in a data folder, or a PostgreSQL
 * database), open beside the command until the test ends. Kept here, out of server/, whose
 * non-test lines issue 40 counts.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { runCli } from "../../server/leads/cli";
import { leadStore, prepareStore } from "../../server/leads/store";
import { type Engine, leadDatabases } from "./engines";

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
 * `serverStore(engine)`: a data folder and a server's connection to its store (tests/support/engines.ts):
 * SQLite's leads.db there, or a PostgreSQL of the file's own. `env` is the command's (DATA_DIR, DATABASE_URL).
 */
export function serverStores() {
  const { place, open } = leadDatabases();
  return async (engine: Engine) => {
    const where = await place(engine);
    const dir = dirname(where.file);
    mkdirSync(dir, { recursive: true, mode: 0o700 }); // made by SQLite's store; with PostgreSQL, the outbox's
    const db = open(where);
    await prepareStore(db);
    const env: Record<string, string> = where.databaseUrl ? { DATA_DIR: dir, DATABASE_URL: where.databaseUrl } : { DATA_DIR: dir };
    return { dir, db, store: leadStore(db), env };
  };
}
