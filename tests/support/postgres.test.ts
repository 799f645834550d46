import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { usePostgres } from "./use-postgres";

/** Runs `text` on a fresh connection to `url`, waiting `timeout` at most. (pause() and resume(): queue.test.ts's and drafts.test.ts's.) */
async function query(url: string, text: string, timeout = 10_000) {
  const client = new pg.Client({ connectionString: url, query_timeout: timeout, connectionTimeoutMillis: timeout });
  client.on("error", () => {}); // a cut connection: the query's own rejection says so
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    client.end().catch(() => {});
  }
}

const read = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};
/** Running: in /proc and not a zombie (dead, its parent not having collected it). */
const running = (pid: number) => /\) [^Z] /.test(read(`/proc/${pid}/stat`));

/** Running processes of the cluster in `dir`: its postmaster (its command line names the folder) and the postmaster's children. */
function clusterProcesses(dir: string) {
  const stats = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      const [stat, command] = [read(`/proc/${pid}/stat`), read(`/proc/${pid}/cmdline`)];
      const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return stat === "" || command === "" || state === "Z" ? [] : [{ pid: Number(pid), parent: Number(parent), command }];
    });
  const postmasters = stats.filter((p) => p.command.includes(join(dir, "data"))).map((p) => p.pid);
  return stats.filter((p) => postmasters.includes(p.pid) || postmasters.includes(p.parent)).map((p) => p.pid);
}

describe("a test's own PostgreSQL (tests/support/postgres.ts)", () => {
  const server = usePostgres();
  let url = "";

  it("starts a cluster of its own that takes tables and rows, as the postgres user when the tests are root", async () => {
    url = await server().database("harness");
    await query(url, "CREATE TABLE leads (marker text PRIMARY KEY)");
    await query(url, "INSERT INTO leads VALUES ('before any restart')");
    expect(await query(url, "SELECT marker FROM leads")).toEqual([{ marker: "before any restart" }]);
    expect(statSync(join(server().dir, "data")).uid).toBe(
      process.getuid!() === 0 ? Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })) : process.getuid!(),
    );
    expect(clusterProcesses(server().dir).length).toBeGreaterThan(1);
  });

  it("an immediate shutdown loses nothing committed: the restart recovers it from the WAL", async () => {
    await query(url, "INSERT INTO leads VALUES ('committed just before')");
    await server().restart({ mode: "immediate" });
    // Its log says it was not shut down properly: a crash's recovery, not a checkpoint's clean start.
    expect(readFileSync(join(server().dir, "postgres.log"), "utf8")).toContain("automatic recovery in progress");
    expect(await query(url, "SELECT marker FROM leads ORDER BY marker")).toEqual([{ marker: "before any restart" }, { marker: "committed just before" }]);
  });

  it("kill() ends every process of the cluster; restart() starts it again with what was committed", async () => {
    const before = clusterProcesses(server().dir);
    await query(url, "INSERT INTO leads VALUES ('committed before kill -9')");
    await server().kill();
    expect(before.filter(running)).toEqual([]);
    await expect(query(url, "SELECT 1", 2_000)).rejects.toThrow(/ECONNREFUSED/);
    await server().restart();
    expect(await query(url, "SELECT count(*)::int AS n FROM leads")).toEqual([{ n: 3 }]);
  });

  it("stop() leaves no process of the cluster and no folder; a second stop() is a no-op", async () => {
    const { dir } = server();
    const processes = clusterProcesses(dir);
    expect(processes.length).toBeGreaterThan(1);
    await server().stop();
    expect(processes.filter(running)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
    await server().stop();
  });
});
