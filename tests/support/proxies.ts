/**
 * The proxies operators put in front of the site, on loopback: Debian's nginx, Caddy and Varnish
 * in the foreground, their files in a folder of their own; deploy/nginx.conf and deploy/Caddyfile
 * as written but for the addresses. SIGTERMed by the test, or when their starter dies.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { type Browser, expect } from "@playwright/test";
import { messages } from "../../app/content/messages";
import { owned } from "../../scripts/test-run.mjs";
import { freePort } from "./ports";
import { REPO, sleep } from "./server";
import { atStep5, calculator, dispatchApp } from "./wizard";

/** `url`: where visitors reach it, e.g. http://127.0.0.1:23456 (a port that is not 80: Host carries it). */
export type Proxy = Awaited<ReturnType<typeof started>>;

/** A shipped file with `from` replaced by `to`, each exactly once, so a file that changes shape fails here. */
function shipped(file: string, replacements: [from: string, to: string][]): string {
  let text = readFileSync(join(REPO, file), "utf8");
  for (const [from, to] of replacements) {
    if (text.split(from).length !== 2) throw new Error(`${file} should hold "${from}" exactly once`);
    text = text.replace(from, to);
  }
  return text;
}

/** `command` run with its files in `dir`, once `url`/healthz gets an answer `ready` takes (any, by default: the site may still be starting). */
async function started(command: string, args: string[], url: string, dir: string, ready = (status: number) => status > 0, env = process.env) {
  let output = "";
  const child = spawn(...owned(command, args, "TERM"), { env, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk) => (output += chunk));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    if (ready((await fetch(`${url}/healthz`).catch(() => null))?.status ?? 0)) return { url, stop };
    await sleep(100);
  }
  await stop();
  throw new Error(`${command} did not answer on ${url}:\n${output}`);
}

/** One nginx, each of `blocks` a server block's text for its own loopback address; `urls` in order. */
export async function startNginx(blocks: ((listen: string) => string)[]) {
  const dir = mkdtempSync(join(tmpdir(), "e2e-nginx-"));
  const urls = await Promise.all(blocks.map(async () => `http://127.0.0.1:${await freePort()}`));
  const temps = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t}_temp_path ${dir}/${t};`);
  // The user directive counts only for a root master: its workers then stay this user, who owns the folder.
  const head = [`user ${userInfo().username};`, "worker_processes 1;", `pid ${dir}/nginx.pid;`, "error_log stderr warn;", "events { worker_connections 256; }"];
  const conf = [...head, "http {", "  access_log off;", ...temps, ...blocks.map((block, i) => block(new URL(urls[i]!).host)), "}"];
  writeFileSync(join(dir, "nginx.conf"), conf.join("\n"));
  const args = ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", "stderr", "-g", "daemon off;"];
  return { ...(await started("nginx", args, urls[0]!, dir)), urls };
}

/** deploy/nginx.conf in front of `sites`: a `server` line each, with the parameters of the file's two. */
const shippedNginx = (sites: string[]) => (listen: string) => {
  const text = shipped("deploy/nginx.conf", [["listen 80;", `listen ${listen};`]]);
  const upstream = /^(?<line> *server )127\.0\.0\.1:3001(?<parameters>.*)\n\k<line>127\.0\.0\.1:3002\k<parameters>\n/m.exec(text);
  if (!upstream?.groups) throw new Error("deploy/nginx.conf should hold the server lines 127.0.0.1:3001 and :3002, with the same parameters");
  const { line, parameters } = upstream.groups;
  return text.replace(upstream[0], sites.map((site) => `${line}${new URL(site).host}${parameters}\n`).join(""));
};

/** nginx with deploy/nginx.conf, or Caddy with deploy/Caddyfile (plain HTTP on a loopback port, no admin endpoint), in front of the sites at `sites`. */
export async function startShipped(proxy: "nginx" | "Caddy", sites: string[]): Promise<Proxy> {
  if (proxy === "nginx") return startNginx([shippedNginx(sites)]);
  const dir = mkdtempSync(join(tmpdir(), "e2e-caddy-"));
  const url = `http://127.0.0.1:${await freePort()}`;
  const caddyfile = shipped("deploy/Caddyfile", [
    ["example.com {", `${url} {`],
    ["reverse_proxy 127.0.0.1:3001 127.0.0.1:3002", `reverse_proxy ${sites.map((site) => new URL(site).host).join(" ")}`],
  ]);
  writeFileSync(join(dir, "Caddyfile"), `{\n\tadmin off\n\tauto_https off\n}\n\n${caddyfile}`);
  // Caddy keeps its data and configuration under XDG folders: here, the test's own.
  const env = { ...process.env, HOME: dir, XDG_DATA_HOME: join(dir, "data"), XDG_CONFIG_HOME: join(dir, "config") };
  return started("caddy", ["run", "--config", join(dir, "Caddyfile"), "--adapter", "caddyfile"], url, dir, undefined, env);
}

/** Varnish in front of `backend`, with its default behaviour (it keeps what s-maxage/max-age allow, honours Vary, passes posts and private/no-store answers). */
export async function startVarnish(backend: string): Promise<Proxy> {
  const { hostname, port } = new URL(backend);
  const dir = mkdtempSync(join(tmpdir(), "e2e-varnish-"));
  writeFileSync(join(dir, "site.vcl"), `vcl 4.1;\nbackend site { .host = "${hostname}"; .port = "${port}"; }\n`);
  const url = `http://127.0.0.1:${await freePort()}`;
  // -F: in the foreground; -j none: no privilege separation (no varnish user needed). Ready once it passes the site's 200 on.
  const args = ["-F", "-j", "none", "-f", join(dir, "site.vcl"), "-a", new URL(url).host, "-n", join(dir, "work"), "-s", "malloc,32m"];
  return started("varnishd", args, url, dir, (status) => status === 200);
}

/**
 * A visitor's forms through a proxy at `baseURL`: the contact form without JavaScript, the
 * calculator with it (each way of posting), thanked or with `refused` answered 403. Resolves with
 * every post's status and Sec-Fetch-Site, the funnel's beacons' too.
 */
export async function sendForms(browser: Browser, baseURL: string, { refused = false } = {}) {
  const posts: Promise<[number, string | null]>[] = [];
  for (const javaScriptEnabled of [false, true]) {
    const context = await browser.newContext({ baseURL, javaScriptEnabled });
    const page = await context.newPage();
    page.on("response", (r) => {
      if (r.request().method() === "POST") posts.push(Promise.all([r.status(), r.request().headerValue("sec-fetch-site")]));
    });
    const answer = refused && page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/");
    const [calc, form] = [calculator(page), page.locator("#contact")];
    if (javaScriptEnabled) {
      await atStep5(page, dispatchApp);
      await calc.getByLabel("Company name").fill("Proxy Test Holdings");
      await calc.getByLabel("Email").fill("proxy@example.co.za");
      await calc.getByLabel("Phone").fill("+27 11 555 0199");
      await calc.getByRole("button", { name: "Send My Request" }).click();
      if (!refused) await expect(calc.getByRole("status")).toHaveText(messages.calculatorSent);
    } else {
      await page.goto("/");
      await form.getByLabel("Name").fill("Lerato Mokoena");
      await form.getByLabel("Email").fill("lerato@mokoena.co.za");
      await form.getByLabel("Service").selectOption("ai");
      await form.getByLabel("Message").fill("We would like a chat assistant.");
      await form.getByRole("button", { name: "Send Message" }).click();
      if (refused) await expect(page.getByText("Forms on this site can only be sent from this site.")).toBeVisible();
      else await expect(form.getByRole("status")).toHaveText(messages.contactSent);
    }
    if (answer) expect((await answer).status()).toBe(403);
    await context.close();
  }
  return Promise.all(posts);
}
