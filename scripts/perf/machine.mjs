/**
 * How busy the machine is. The perf numbers are only comparable between runs on a quiet machine,
 * so every step records the load average, and Lighthouse runs wait for idle cores first.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";

export const load = () => Number(loadavg()[0].toFixed(2));
export const cores = () => cpus().length;

/** Share of all cores busy over `ms`, from /proc/stat (Linux); null where there is none. */
async function busyShare(ms = 1000) {
  const sample = () => {
    try {
      const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
      const n = fields.map(Number);
      return { idle: n[3] + (n[4] || 0), total: n.reduce((a, b) => a + b, 0) };
    } catch {
      return null;
    }
  };
  const before = sample();
  await new Promise((r) => setTimeout(r, ms));
  const after = sample();
  if (!before || !after || after.total === before.total) return null;
  return 1 - (after.idle - before.idle) / (after.total - before.total);
}

/**
 * Waits (up to PERF_QUIET_WAIT seconds, default 120) until the cores are mostly idle, and returns
 * how busy they were in percent. Lighthouse's simulation multiplies the main-thread time it
 * observes, so other work on the machine shows up as Total Blocking Time.
 */
export async function waitForQuiet() {
  const deadline = Date.now() + Number(process.env.PERF_QUIET_WAIT ?? 120) * 1000;
  let busy = await busyShare();
  while (busy !== null && busy > 0.15 && Date.now() < deadline) {
    console.error(`    waiting for a quiet machine (${Math.round(busy * 100)}% busy)`);
    await new Promise((r) => setTimeout(r, 4000));
    busy = await busyShare();
  }
  return busy === null ? null : Math.round(busy * 100);
}

/** The load average at each step so far, for the results: other work comes and goes mid-run. */
export const loadLog = [];

/** One progress line on stderr, with the load at that moment (also kept in loadLog). */
export function step(text) {
  loadLog.push({ at: new Date().toISOString(), step: text, load: load() });
  console.error(`==> ${text} (load ${load()} on ${cores()} cores)`);
}

/**
 * The time process `pid`'s main thread has spent on a core and waiting for one (runnable, but
 * other work had the cores) so far, in ms (the kernel's schedstat); null once it is gone. The rest
 * of the time it was idle, waiting for I/O, a socket or a database. A Node server's requests all
 * run on its main thread (node:sqlite's calls too), so this tells a busy machine from a slow store.
 */
export function schedMs(pid) {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ").map(Number);
    return { running: run / 1e6, waiting: wait / 1e6 };
  } catch {
    return null;
  }
}
