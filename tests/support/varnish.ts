/**
 * A real caching proxy for a test: Debian's Varnish in front of one of the test sites, on a free
 * loopback port, with its default behaviour (it keeps what `s-maxage`/`max-age` allow, honours
 * `Vary`, passes posts and `private`/`no-store` answers, stores gzip). Stopped by the test.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { owned } from "../../scripts/test-run.mjs";
import { stopped } from "./proxies";
import { freePort } from "./ports";

export interface Varnish {
  url: string;
  stop(): Promise<void>;
}

export async function startVarnish(backend: string): Promise<Varnish> {
  const { hostname, port: backendPort } = new URL(backend);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "e2e-varnish-"));
  writeFileSync(join(dir, "site.vcl"), `vcl 4.1;\nbackend site { .host = "${hostname}"; .port = "${backendPort}"; }\n`);
  // -F: in the foreground, as this process's child; -j none: no privilege separation (no varnish
  // user needed). SIGTERM if this process dies first: the manager then stops its cache process.
  const child: ChildProcess = spawn(
    ...owned("varnishd", ["-F", "-j", "none", "-f", join(dir, "site.vcl"), "-a", `127.0.0.1:${port}`, "-n", join(dir, "work"), "-s", "malloc,32m"], "TERM"),
    { stdio: "ignore" },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = () => stopped(child, dir);
  for (let i = 0; i < 100; i++) {
    const status = await fetch(`${url}/healthz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return { url, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`varnishd did not answer on port ${port}`);
}
