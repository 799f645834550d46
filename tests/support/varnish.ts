/**
 * A real caching proxy for a test: Debian's Varnish in front of one of the test sites, on a free
 * loopback port, with its default behaviour (it keeps what `s-maxage`/`max-age` allow, honours
 * `Vary`, passes posts and `private`/`no-store` answers, stores gzip). Stopped by the test.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports";
import { type Proxy, started } from "./proxies";

export type Varnish = Proxy;

export async function startVarnish(backend: string): Promise<Varnish> {
  const { hostname, port } = new URL(backend);
  const dir = mkdtempSync(join(tmpdir(), "e2e-varnish-"));
  writeFileSync(join(dir, "site.vcl"), `vcl 4.1;\nbackend site { .host = "${hostname}"; .port = "${port}"; }\n`);
  const url = `http://127.0.0.1:${await freePort()}`;
  // -F: in the foreground; -j none: no privilege separation (no varnish user needed). Ready once it passes the site's 200 on.
  const args = ["-F", "-j", "none", "-f", join(dir, "site.vcl"), "-a", new URL(url).host, "-n", join(dir, "work"), "-s", "malloc,32m"];
  return started("varnishd", args, url, dir, (status) => status === 200);
}
