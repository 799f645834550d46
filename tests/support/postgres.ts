/**
 * A real PostgreSQL for a test (Debian's `postgresql`): a cluster of its own, made by initdb in a
 * temporary folder, on a free loopback port, dying with the process that started it (owned()). As
 * root, initdb and postgres run as Debian's `postgres` user. Used by vitest (use-postgres.ts),
 * Playwright (started.ts) and Node's type stripping (scripts/perf/lead-wait.mjs: imports name files whole).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { chmodSync, chownSync, closeSync, existsSync, globSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { owned } from "../../scripts/test-run.mjs";
import { freePort } from "./ports.ts";

export interface Postgres {
  port: number;
  /** The cluster's `postgres` database as its superuser `postgres` (no password: trust on loopback). */
  url: string;
  /** The temporary folder: the cluster (data/), its socket and its log (postgres.log). */
  dir: string;
  /** Creates a database in this cluster; resolves with its URL. */
  database(name: string): Promise<string>;
  /** Shuts it down "fast" (SIGINT) or "immediate" (SIGQUIT: a crash's recovery from the WAL) and starts it again; after kill(), only starts it. */
  restart(options?: { mode?: "fast" | "immediate" }): Promise<void>;
  /** kill -9 of the postmaster and all its processes, as a crash; restart() starts it again. */
  kill(): Promise<void>;
  /** SIGSTOP to every process of the cluster: connections accepted, nothing answers; resume() undoes it. */
  /** Resolves once the postmaster and every process it had forked are stopped. */
  pause(): Promise<void>;
  resume(): void;
  /** Shuts it down and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

export interface PostgresOptions {
  /** Settings beyond the tests' own (postgresql.conf names), e.g. `{ max_connections: 20 }`. */
  settings?: Record<string, string | number>;
  /** Where to make its folder (default: the temporary folder); as root, the folders above it are made passable (o+x). */
  parent?: string;
}

/** Debian's programs are not on PATH: its newest version's, else PATH's (another system). */
const BIN = globSync("/usr/lib/postgresql/*/bin/postgres")
  .map((path) => dirname(path))
  .sort((a, b) => parseFloat(b.split("/")[3]!) - parseFloat(a.split("/")[3]!))[0];
const program = (name: string) => (BIN ? join(BIN, name) : name);
const USER = "postgres";
const asRoot = process.getuid?.() === 0;
/** initdb's, a start's and a shutdown's limits, for a machine four times slower than ours. */
const [INITDB_MS, READY_MS, SHUTDOWN_MS] = [120_000, 30_000, 30_000];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The /proc/<pid>/stat fields after the name: state, parent, …; none once it is gone. */
function stat(pid: number | string) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}
/** Running: present in /proc and not a zombie (dead, not yet reaped by its parent). */
const running = (pid: number) => ![undefined, "Z"].includes(stat(pid)?.[0]);
/** The running processes whose parent is `pid`: a postmaster's backends and helpers. */
const childrenOf = (pid: number) =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name) && running(+name) && Number(stat(name)?.[1]) === pid)
    .map(Number);
function signal(pid: number, name: NodeJS.Signals) {
  try {
    process.kill(pid, name);
  } catch {
    // gone meanwhile
  }
}
async function gone(pids: number[], ms: number) {
  for (const deadline = Date.now() + ms; pids.some(running) && Date.now() < deadline;) await sleep(50);
  return !pids.some(running);
}

/** Whether the cluster in `data` answers a query at `url`: up, out of recovery, and ours (not another's that took the port first). */
async function answers(url: string, data: string) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {}); // a connection cut during start-up: only a failed try
  try {
    await client.connect();
    return (await client.query<{ data_directory: string }>("SHOW data_directory")).rows[0]?.data_directory === data;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function startPostgres(options: PostgresOptions = {}): Promise<Postgres> {
  if (options.parent) mkdirSync(options.parent, { recursive: true });
  // Others may pass through (not read) each folder from the parent up to the temporary folder.
  if (asRoot && options.parent)
    for (let folder = resolve(options.parent); folder.startsWith(`${resolve(tmpdir())}${sep}`); folder = dirname(folder))
      chmodSync(folder, (statSync(folder).mode & 0o7777) | 0o001);
  const dir = mkdtempSync(join(options.parent ?? tmpdir(), "postgres-"));
  const [data, logFile] = [join(dir, "data"), join(dir, "postgres.log")];
  const user = asRoot ? USER : undefined;
  if (user) chownSync(dir, ...(["-u", "-g"].map((flag) => Number(execFileSync("id", [flag, USER], { encoding: "utf8" }))) as [number, number]));
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8").trim().split("\n").slice(-20).join("\n") : "");

  try {
    // Trust on loopback, no fsync, and WAL segments of 1 MB, not 16: a third less on disk.
    const args = ["-D", data, "-U", USER, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C", "--wal-segsize=1", "--no-instructions"];
    await promisify(execFile)(...owned(program("initdb"), args, "KILL", user), { timeout: INITDB_MS });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    const as = user ? ` as ${user}, who must be able to pass through every folder above it (o+x)` : "";
    throw new Error(`initdb failed in ${dir}${as}: ${String(error)}\n${stdout}${stderr}`);
  }

  let port = 0;
  let postmaster: ChildProcess | undefined;
  const url = () => `postgres://${USER}@127.0.0.1:${port}/postgres`;
  const up = () => postmaster !== undefined && postmaster.exitCode === null && postmaster.signalCode === null;

  /** Starts the postmaster; resolves once it answers a query, or throws naming its log. */
  async function start() {
    const settings = {
      listen_addresses: "127.0.0.1",
      port,
      unix_socket_directories: dir,
      // Without fsync a process crash loses nothing committed (the WAL is in the kernel's cache); synchronous_commit stays on.
      fsync: "off",
      // In the cluster's folder, not /dev/shm: nothing left behind by a killed cluster, and no container's small /dev/shm to fill.
      dynamic_shared_memory_type: "mmap",
      shared_buffers: "16MB",
      ...options.settings,
    };
    const out = openSync(logFile, "a");
    const args = Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
    const child = spawn(...owned(program("postgres"), ["-D", data, ...args], "KILL", user), { stdio: ["ignore", out, out] });
    closeSync(out);
    postmaster = child;
    for (const deadline = Date.now() + READY_MS; Date.now() < deadline && up(); await sleep(100)) if (await answers(url(), data)) return;
    const why = up() ? `did not answer within ${READY_MS / 1000} s` : `exited (${child.exitCode ?? child.signalCode})`;
    await shutDown("SIGKILL");
    throw new Error(`PostgreSQL on port ${port} ${why}; its log, ${logFile}:\n${log()}`);
  }

  /** Every process of the cluster, the postmaster first. */
  const processes = () => (up() ? [postmaster!.pid!, ...childrenOf(postmaster!.pid!)] : []);

  /** Sends the postmaster `how` (SIGINT fast, SIGQUIT immediate, SIGKILL it and all) and waits until all are gone. */
  async function shutDown(how: "SIGINT" | "SIGQUIT" | "SIGKILL") {
    if (!up()) return;
    const pid = postmaster!.pid!;
    const exited = once(postmaster!, "exit");
    if (how === "SIGKILL") signal(pid, "SIGSTOP"); // first, so it forks nothing the listing misses
    const all = processes();
    if (how === "SIGKILL") for (const each of all) signal(each, "SIGKILL");
    else {
      for (const each of all) signal(each, "SIGCONT"); // a paused cluster would not act on it
      signal(pid, how);
    }
    if (!(await gone(all, SHUTDOWN_MS))) for (const each of all) signal(each, "SIGKILL");
    await Promise.all([gone(all, SHUTDOWN_MS), exited]);
  }

  /** Removes the folder and, after a kill, the SysV segment the postmaster left (a machine has 4,096): its pid file's line 7. */
  async function release() {
    const pidFile = join(data, "postmaster.pid");
    const id = existsSync(pidFile) && readFileSync(pidFile, "utf8").split("\n")[6]?.trim().split(/\s+/)[1];
    if (id) await promisify(execFile)("ipcrm", ["-m", id]).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }

  // A free port can be taken by another worker before the postmaster binds it: another, then.
  for (let tries = 1; ; tries++) {
    port = await freePort();
    try {
      await start();
      break;
    } catch (error) {
      if (tries < 3 && /could not bind/.test(log())) continue;
      await release();
      throw error;
    }
  }

  let stopped = false;
  return {
    port,
    url: url(),
    dir,
    async database(name) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://${USER}@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    async restart({ mode = "fast" } = {}) {
      await shutDown(mode === "fast" ? "SIGINT" : "SIGQUIT");
      await start();
    },
    kill: () => shutDown("SIGKILL"),
    async pause() {
      if (!up()) return;
      const pid = postmaster!.pid!;
      // The postmaster first, so it starts no backend the listing misses. kill() returns before the signal is taken: a
      // postmaster running on the other core may still finish a fork, so the listing waits until it is stopped ("T").
      signal(pid, "SIGSTOP");
      for (let left = 1_000; left > 0 && running(pid) && stat(pid)?.[0] !== "T"; left--) await sleep(5);
      const stopped = () => childrenOf(pid).every((each) => stat(each)?.[0] === "T");
      for (let left = 1_000; left > 0 && !stopped(); left--) {
        for (const each of childrenOf(pid)) signal(each, "SIGSTOP");
        await sleep(5);
      }
    },
    resume: () => processes().forEach((each) => signal(each, "SIGCONT")),
    async stop() {
      if (stopped) return;
      stopped = true;
      // Immediate: the folder goes anyway, and the postmaster still removes its shared memory.
      await shutDown("SIGQUIT");
      await release();
    },
  };
}
