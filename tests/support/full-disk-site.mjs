/**
 * The e2e site whose lead store opens and then cannot be written: its DATA_DIR is a small tmpfs
 * (mounted here; this needs root, as the tests run), the server starts and opens its database,
 * then a filler file takes every byte left. Every lead posted to it fails to store for real
 * (SQLITE_FULL), so the browser tests see the failure text. Once full, it answers on READY_PORT,
 * which is what Playwright waits for; on SIGTERM it stops the server and unmounts.
 */
import { execFileSync, spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";

const dir = process.env.DATA_DIR;
const ready = Number(process.env.READY_PORT);
mkdirSync(dir, { recursive: true });
execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", dir]);
const unmount = () => {
  try {
    execFileSync("umount", ["-l", dir], { stdio: "ignore" });
  } catch {
    // already gone
  }
};

const server = spawn(process.execPath, ["build/server/index.js"], { stdio: "inherit", env: process.env });
process.on("SIGTERM", () => server.kill("SIGTERM"));
process.on("SIGINT", () => server.kill("SIGTERM"));
server.on("exit", (code) => (unmount(), process.exit(code ?? 0)));

const health = `http://127.0.0.1:${process.env.PORT}/healthz`;
while (
  (await fetch(health).then(
    (r) => r.status,
    () => 0,
  )) !== 200
)
  await new Promise((r) => setTimeout(r, 100));

// Every byte left: big writes first, then smaller ones until the file system says no more.
const fd = openSync(join(dir, "filler"), "w");
for (const size of [65_536, 4_096, 512, 1]) {
  const chunk = Buffer.alloc(size, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC at this size: try a smaller one
  }
}
closeSync(fd);
createServer((_req, res) => res.end("full")).listen(ready, "127.0.0.1");
