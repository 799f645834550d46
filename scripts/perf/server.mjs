/**
 * The production server as `npm start` runs it (remix-serve), on 127.0.0.1 for the perf scripts.
 * morgan's access log goes to a file under perf/, as it would to a log collector.
 */
import { spawn } from "node:child_process";
import { mkdirSync, openSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { get } from "./throughput.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** Starts remix-serve on `port` with `buildFile`; resolves once /healthz answers 200. */
export async function startServer({ buildFile = "./build/index.js", port, logName = "server" }) {
  mkdirSync(join(root, "perf"), { recursive: true });
  const log = openSync(join(root, `perf/${logName}.tmp.log`), "w");
  const child = spawn(process.execPath, [join(root, "node_modules/@remix-run/serve/dist/cli.js"), buildFile], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", NODE_ENV: "production", OUTBOX_FILE: join(root, "perf/outbox.tmp.jsonl") },
    stdio: ["ignore", log, log],
  });
  const stop = () => child.exitCode === null && child.kill("SIGTERM");
  process.on("exit", stop);
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}); see perf/${logName}.tmp.log`);
    try {
      if ((await get(`http://127.0.0.1:${port}/healthz`)).status === 200) return { child, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  stop();
  throw new Error(`remix-serve on port ${port} did not come up in 20 s`);
}
