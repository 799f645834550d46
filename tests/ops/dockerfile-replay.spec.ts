/**
 * Replays the Dockerfile without Docker: each stage in its own empty temp directory (the image's
 * absolute paths mapped into it) with only what its COPY lines bring (a clean clone's files, `git
 * ls-files`, less .dockerignore; or an earlier stage's), its RUN lines run by bash in the mapped
 * WORKDIR. Then the final stage's ENTRYPOINT + CMD runs with its ENV (PORT, HOST set for the test).
 * Not replayed: apt-get lines (their packages must be on the host: scripts/test.sh installs tini),
 * chown (a no-op), USER (only checked not to be root), `--mount` (npm uses the host's cache).
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, posix } from "node:path";
import { expect, test } from "@playwright/test";
import { postContact, REPO } from "../support/server";

const PORT = 3300; // tests/ops use 3300-3399
const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { version: string };

type Env = Record<string, string | undefined>;
const asEnv = (env: Env) => env as NodeJS.ProcessEnv; // @remix-run/node's globals require NODE_ENV there
type Stage = { name: string; root: string; workdir: string; env: Record<string, string> };

/** One entry per instruction: comment lines dropped, continuation lines joined. */
const instructions = (text: string) =>
  text.split("\n").filter((l) => !/^\s*#/.test(l)).join("\n").replace(/\\\n\s*/g, " ")
    .split("\n").map((l) => l.trim()).filter(Boolean)
    .map((l) => /^(\w+)\s+(.*)$/.exec(l)!).map(([, op, args]) => ({ op: op!.toUpperCase(), args: args! }));

/** Leading `--name=value` flags, then the rest. */
function flags(args: string): [Record<string, string>, string] {
  const out: Record<string, string> = {};
  let rest = args;
  for (let m; (m = /^--([\w-]+)=(\S+)\s+/.exec(rest)); rest = rest.slice(m[0].length)) out[m[1]!] = m[2]!;
  return [out, rest];
}
const execForm = (args: string): string[] => (args.startsWith("[") ? JSON.parse(args) : ["/bin/sh", "-c", args]);

/** .dockerignore patterns as Docker reads them: from the context root, a directory hides its contents. */
const glob = (p: string) =>
  new RegExp(`^${p.replace(/^\/|\/$/g, "").split(/(\*\*\/|\*\*|\*|\?)/).map((t) =>
    ({ "**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]" })[t] ?? t.replace(/[.+^${}()|[\]\\]/g, "\\$&")).join("")}(?:/.*)?$`);
const patterns = readFileSync(join(REPO, ".dockerignore"), "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
const ignored = (f: string) => patterns.reduce((out, p) => (p.startsWith("!") ? (glob(p.slice(1)).test(f) ? false : out) : glob(p).test(f) || out), false);
const context = () => spawnSync("git", ["ls-files", "-z"], { cwd: REPO, encoding: "utf8" }).stdout.split("\0")
  .filter((f) => f && !ignored(f) && existsSync(join(REPO, f)));

test("the Dockerfile replayed without Docker builds an image whose CMD serves /healthz and stops on SIGTERM", async () => {
  test.skip(test.info().project.name !== "js", "runs once, in the js project");
  test.setTimeout(6 * 60_000);
  const files = context();
  expect(files.filter((f) => f.startsWith("tests/") || f.endsWith(".test.ts"))).toEqual([]);
  const tmp = mkdtempSync(join(tmpdir(), "dockerfile-replay-"));
  // A clean environment: no npm_config_* from an enclosing `npm run`, nothing from the test run.
  const hostEnv: Env = { PATH: process.env.PATH, HOME: process.env.HOME, npm_config_prefer_offline: "true" };
  const stages: Stage[] = [];
  const apt: string[] = [];
  let user = "root", expose = "", healthcheck: string[] = [], entrypoint: string[] = [], cmd: string[] = [];
  const at = (s: Stage, p: string) => join(s.root, posix.resolve(s.workdir, p));
  const mapEnv = (s: Stage) => Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, v.startsWith(`${s.workdir}/`) ? at(s, v) : v]));
  try {
    for (const { op, args } of instructions(readFileSync(join(REPO, "Dockerfile"), "utf8"))) {
      const stage = stages.at(-1)!;
      if (op === "FROM") {
        const [, image, name] = /^(\S+)\s+AS\s+(\S+)$/i.exec(args)!;
        expect(image).toBe("node:20-bookworm-slim");
        stages.push({ name: name!, root: join(tmp, name!), workdir: "/", env: {} });
        mkdirSync(join(tmp, name!));
        user = "root";
      } else if (op === "WORKDIR") {
        stage.workdir = posix.resolve(stage.workdir, args);
        mkdirSync(at(stage, "."), { recursive: true });
      } else if (op === "ENV") {
        for (const [, k, v] of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) stage.env[k!] = v!.replace(/^"|"$/g, "");
      } else if (op === "COPY") {
        const [{ from }, rest] = flags(args);
        const sources = rest.split(/\s+/);
        const dest = sources.pop()!;
        for (const src of sources) {
          if (from) {
            cpSync(at(stages.find((s) => s.name === from)!, src), at(stage, dest), { recursive: true });
            continue;
          }
          const s = posix.normalize(src).replace(/\/$/, "");
          const picked = files.filter((f) => s === "." || f === s || f.startsWith(`${s}/`));
          expect(picked, `COPY ${src}: nothing in the build context`).not.toEqual([]);
          for (const f of picked) {
            const target = f !== s ? posix.join(dest, s === "." ? f : f.slice(s.length + 1)) : dest.endsWith("/") ? posix.join(dest, posix.basename(f)) : dest;
            mkdirSync(dirname(at(stage, target)), { recursive: true });
            cpSync(join(REPO, f), at(stage, target));
          }
        }
      } else if (op === "RUN") {
        const script = flags(args)[1];
        if (/\bapt-get\b/.test(script)) {
          const packages = /apt-get install\s+(.*?)(?:&&|$)/.exec(script)?.[1]?.split(/\s+/).filter((p) => p && !p.startsWith("-")) ?? [];
          for (const p of packages) expect(spawnSync("dpkg", ["-s", p]).status, `${p} (apt-get in the Dockerfile) must be on this host`).toBe(0);
          apt.push(...packages);
          continue;
        }
        const env = asEnv({ ...hostEnv, ...mapEnv(stage) });
        const run = spawnSync("bash", ["-euo", "pipefail", "-c", `chown() { :; }\n${script}`], { cwd: at(stage, "."), env, encoding: "utf8", maxBuffer: 64 << 20, timeout: 4 * 60_000 });
        expect(run.status, `RUN ${script} in ${stage.name}\n${run.stdout}\n${run.stderr}`).toBe(0);
      } else if (op === "USER") user = args;
      else if (op === "EXPOSE") expose = args;
      else if (op === "HEALTHCHECK") healthcheck = execForm(flags(args)[1].replace(/^CMD\s+/, ""));
      else if (op === "ENTRYPOINT") entrypoint = execForm(args);
      else if (op === "CMD") cmd = execForm(args);
      else throw new Error(`the replay does not know ${op}`);
    }

    const final = stages.at(-1)!;
    expect(stages.length, "multi-stage").toBeGreaterThan(1);
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(expose).toBe("3000");
    expect(final.env).toMatchObject({ NODE_ENV: "production", PORT: "3000", OUTBOX_FILE: posix.join(final.workdir, "data/outbox.jsonl") });
    expect(apt).toContain("tini");
    expect(entrypoint[0]).toMatch(/\/tini$/);
    expect(cmd).toEqual(["node", "build/server/index.js"]);
    expect(process.versions.node.split(".")[0], "host node = the image's").toBe("20");
    // The final stage holds the build, the public files and production dependencies only.
    expect(readdirSync(at(final, ".")).sort()).toEqual(["build", "data", "node_modules", "package-lock.json", "package.json", "public"]);
    expect([existsSync(at(final, "public/build")), existsSync(at(final, "node_modules/@remix-run/dev"))]).toEqual([true, false]);

    const env = asEnv({ ...hostEnv, ...mapEnv(final), PORT: String(PORT), HOST: "127.0.0.1" });
    // Its own process group, so the cleanup below also reaches node under tini.
    const server = spawn(entrypoint[0]!, [...entrypoint.slice(1), ...cmd], { cwd: at(final, "."), env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    for (const stream of [server.stdout, server.stderr]) stream.on("data", (d: Buffer) => (output += d));
    const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
    const url = `http://127.0.0.1:${PORT}`;
    try {
      await expect.poll(async () => (await fetch(`${url}/healthz`).catch(() => null))?.status, { timeout: 20_000 }).toBe(200);
      expect(await (await fetch(`${url}/healthz`)).json()).toMatchObject({ status: "ok", version: pkg.version });
      await expect.poll(() => output).toContain('"event":"start"');
      // No FORM_ACCESS_KEY: a message goes to the outbox under the writable data directory.
      expect((await postContact(url, "Replay outbox check")).status).toBe(303);
      expect(readFileSync(env.OUTBOX_FILE!, "utf8")).toContain("Replay outbox check");
      const check = spawnSync(healthcheck[0]!, healthcheck.slice(1), { cwd: at(final, "."), env, encoding: "utf8", timeout: 10_000 });
      expect(check.status, `HEALTHCHECK: ${check.stderr}`).toBe(0);
      server.kill("SIGTERM"); // to tini, which passes it on to node
      expect(await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000, "running 10 s after SIGTERM"))]), output).toBe(0);
    } finally {
      if (server.exitCode === null && server.signalCode === null) process.kill(-server.pid!, "SIGKILL");
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
