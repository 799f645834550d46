/**
 * The reverse proxies operators put in front of the site, as processes of a test's own on
 * loopback: Debian's nginx and Caddy, in the foreground, their configuration, pid file, logs and
 * temporary files in a folder of their own (nothing under /etc or /var). The shipped files
 * (deploy/nginx.conf, deploy/Caddyfile) are run as written, with only their listening address and
 * the sites' addresses put in. Stopped by the test, or stopped (SIGTERM, which takes nginx's worker
 * with its master) when the process that started them dies.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { owned } from "../../scripts/test-run.mjs";
import { freePort } from "./ports";
import { REPO } from "./server";

export interface Proxy {
  /** Where visitors reach it, e.g. http://127.0.0.1:23456 (a port that is not 80: Host carries it). */
  url: string;
  stop(): Promise<void>;
}

/** A shipped file with `from` replaced by `to`, each exactly once, so a file that changes shape fails here. */
function shipped(file: string, replacements: [from: string, to: string][]): string {
  let text = readFileSync(join(REPO, file), "utf8");
  for (const [from, to] of replacements) {
    if (text.split(from).length !== 2) throw new Error(`${file} should hold "${from}" exactly once`);
    text = text.replace(from, to);
  }
  return text;
}

/** Stops a proxy of a test's own (SIGTERM), then removes its folder. */
export const stopped = (child: ChildProcess, dir: string) =>
  new Promise<void>((resolve) => {
    const done = () => (rmSync(dir, { recursive: true, force: true }), resolve());
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once("exit", done);
    child.kill("SIGTERM");
  });

async function started(name: string, child: ChildProcess, url: string, dir: string, log: () => string): Promise<Proxy> {
  const stop = () => stopped(child, dir);
  for (let i = 0; i < 100; i++) {
    // Any answer will do (the site itself may still be starting): the proxy listens.
    if (
      await fetch(`${url}/healthz`).then(
        () => true,
        () => false,
      )
    )
      return { url, stop };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const output = log();
  await stop();
  throw new Error(`${name} did not answer on ${url}:\n${output}`);
}

/**
 * One nginx for several server blocks: each of `blocks` gives a block's text for the loopback
 * address it is to listen on (a free port of its own). Resolves with each block's URL, in order.
 */
export async function startNginx(blocks: ((listen: string) => string)[]): Promise<{ urls: string[]; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "e2e-nginx-"));
  const ports = await Promise.all(blocks.map(() => freePort()));
  for (const temp of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, temp));
  const conf = [
    // The user directive counts only for a root master: its workers then stay this user, who owns the folder.
    `user ${userInfo().username};`,
    "worker_processes 1;",
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    "events { worker_connections 256; }",
    "http {",
    "  access_log off;",
    ...["body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t === "body" ? "client_body" : t}_temp_path ${dir}/${t};`),
    ...blocks.map((block, i) => block(`127.0.0.1:${ports[i]}`)),
    "}",
  ].join("\n");
  writeFileSync(join(dir, "nginx.conf"), conf);
  let output = "";
  const child = spawn(...owned("nginx", ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log"), "-g", "daemon off;"], "TERM"), {
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  const { stop } = await started("nginx", child, urls[0]!, dir, () => `${output}${readFileSync(join(dir, "error.log"), "utf8")}`);
  return { urls, stop };
}

/**
 * deploy/nginx.conf (its upstream and server block) for startNginx, in front of the sites at
 * `sites`: a `server` line each, with the parameters of the file's two (compose.yaml's sites,
 * 127.0.0.1:3001 and :3002). Once per nginx: the upstream's name is the file's.
 */
export const shippedNginx = (sites: string[]) => (listen: string) => {
  const text = shipped("deploy/nginx.conf", [["listen 80;", `listen ${listen};`]]);
  const upstream = /^(?<line> *server )127\.0\.0\.1:3001(?<parameters>.*)\n\k<line>127\.0\.0\.1:3002\k<parameters>\n/m.exec(text);
  if (!upstream?.groups) throw new Error("deploy/nginx.conf should hold the server lines 127.0.0.1:3001 and :3002, with the same parameters");
  const { line, parameters } = upstream.groups;
  return text.replace(upstream[0], sites.map((site) => `${line}${new URL(site).host}${parameters}\n`).join(""));
};

/** Caddy with deploy/Caddyfile in front of the sites at `sites`: plain HTTP on a loopback port, no admin endpoint. */
export async function startCaddy(sites: string[]): Promise<Proxy> {
  const dir = mkdtempSync(join(tmpdir(), "e2e-caddy-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const caddyfile = shipped("deploy/Caddyfile", [
    ["example.com {", `${url} {`],
    ["reverse_proxy 127.0.0.1:3001 127.0.0.1:3002", `reverse_proxy ${sites.map((site) => new URL(site).host).join(" ")}`],
  ]);
  writeFileSync(join(dir, "Caddyfile"), `{\n\tadmin off\n\tauto_https off\n}\n\n${caddyfile}`);
  let output = "";
  // Caddy keeps its data and configuration under XDG folders: here, the test's own.
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") };
  const child = spawn(...owned("caddy", ["run", "--config", join(dir, "Caddyfile"), "--adapter", "caddyfile"], "TERM"), {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  return started("caddy", child, url, dir, () => output);
}
