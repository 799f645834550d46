/**
 * The site's server as `npm start` runs it, started with scripts/serve.mjs for a perf script:
 * pinned to PERF_SERVER_CPUS (default core 0), its JSON log in perf/<name>.tmp.log (as it would
 * go to a log collector, not through this process), and a data directory of its own, so leads or
 * outbox lines from an earlier run are never picked up again.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO, serve } from "../serve.mjs";

export const SERVER_CPUS = process.env.PERF_SERVER_CPUS || "0";

/**
 * @param {number} port
 * @param {Record<string, string>} [env]  added to serve()'s production environment
 * @param {string} [name]  names the log file
 * @returns {Promise<{ url: string, pid: number, logFile: string, stop: () => Promise<void> }>}
 */
export async function startSite(port, env = {}, name = "server") {
  const data = mkdtempSync(join(tmpdir(), "perf-site-"));
  const logFile = join(REPO, "perf", `${name}.tmp.log`);
  const served = serve(port, { DATA_DIR: data, ...env }, { logFile, cpus: SERVER_CPUS });
  const kill = () => served.kill();
  process.on("exit", kill);
  try {
    await served.listening;
  } catch (error) {
    kill();
    throw error;
  }
  return {
    url: served.url,
    // The server's own: taskset and setpriv exec it.
    pid: served.child.pid,
    logFile,
    // SIGTERM first, as an operator stops it; SIGKILL when a graceful stop takes over 5 s.
    async stop() {
      process.off("exit", kill);
      if (served.child.exitCode === null && served.child.signalCode === null) {
        served.child.kill("SIGTERM");
        const timer = setTimeout(kill, 5000);
        await served.exited;
        clearTimeout(timer);
      }
      rmSync(data, { recursive: true, force: true });
    },
  };
}
