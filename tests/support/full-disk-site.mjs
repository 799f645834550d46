/**
 * The e2e site whose lead store opens and then cannot be written: its DATA_DIR a small tmpfs, filled
 * once the server has opened its database, so every lead fails to store for real (SQLITE_FULL).
 * Ready on READY_PORT once full; on SIGTERM it stops the server and unmounts.
 */
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { owned } from "../../scripts/test-run.mjs";
import { fill, mountTmpfs, unmountTmpfs } from "./tmpfs.mjs";

const dir = process.env.DATA_DIR;
const ready = Number(process.env.READY_PORT);
mkdirSync(dir, { recursive: true });
mountTmpfs(dir, "1m");

const server = spawn(...owned(process.execPath, ["build/server/index.js"]), { stdio: "inherit", env: process.env });
process.on("SIGTERM", () => server.kill("SIGTERM"));
process.on("SIGINT", () => server.kill("SIGTERM"));
server.on("exit", (code) => (unmountTmpfs(dir), process.exit(code ?? 0)));

const health = `http://127.0.0.1:${process.env.PORT}/healthz`;
const status = () => fetch(health).then((r) => r.status, () => 0); // prettier-ignore
while ((await status()) !== 200) await new Promise((r) => setTimeout(r, 100));

fill(dir); // every byte left
createServer((_req, res) => res.end("full")).listen(ready, "127.0.0.1");
