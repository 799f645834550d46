/**
 * Replays the Dockerfile without Docker (no engine runs on these machines): each stage in its own
 * empty directory, the image's absolute paths mapped into it, with only what its COPY lines bring
 * (a clean clone's files, `git ls-files`, less .dockerignore; or an earlier stage's) and its RUN
 * lines run by bash in the mapped WORKDIR. Not replayed: apt-get (its packages must be on the host:
 * scripts/test.sh installs tini), chown (a no-op), `--mount` (npm uses the host's cache).
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";

export interface Stage {
  name: string;
  image: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
}

/** What the final image would be, and how to run it here. */
export interface Image {
  stages: Stage[];
  user: string;
  expose: string;
  aptPackages: string[];
  healthcheck: string[];
  entrypoint: string[];
  cmd: string[];
  /** A path inside the final stage, e.g. at("build") */
  at(path: string): string;
  /** The final stage's ENV with image paths mapped into the replay. */
  env: Record<string, string>;
}

/** One entry per instruction: comment lines dropped, continuation lines joined. */
export const instructions = (text: string) =>
  text
    .split("\n")
    .filter((line) => !/^\s*#/.test(line))
    .join("\n")
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => /^(\w+)\s+(.*)$/.exec(line)!)
    .map(([, op, args]) => ({ op: op!.toUpperCase(), args: args! }));

/** Leading `--name=value` flags, then the rest. */
function flags(args: string): [Record<string, string>, string] {
  const out: Record<string, string> = {};
  let rest = args;
  for (let m; (m = /^--([\w-]+)=(\S+)\s+/.exec(rest)); rest = rest.slice(m[0].length)) out[m[1]!] = m[2]!;
  return [out, rest];
}

const execForm = (args: string): string[] => (args.startsWith("[") ? (JSON.parse(args) as string[]) : ["/bin/sh", "-c", args]);

/** A .dockerignore pattern as Docker reads it: from the context root; a directory hides its contents. */
const glob = (pattern: string) =>
  new RegExp(
    `^${pattern
      .replace(/^\/|\/$/g, "")
      .split(/(\*\*\/|\*\*|\*|\?)/)
      .map((t) => ({ "**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]" })[t] ?? t.replace(/[.+^${}()|[\]\\]/g, "\\$&"))
      .join("")}(?:/.*)?$`,
  );

/** The build context: a clean clone's files, less what .dockerignore leaves out. */
export function buildContext(repo: string): string[] {
  const patterns = readFileSync(join(repo, ".dockerignore"), "utf8").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const ignored = (file: string) => patterns.reduce((out, p) => (p.startsWith("!") ? (glob(p.slice(1)).test(file) ? false : out) : glob(p).test(file) || out), false);
  return spawnSync("git", ["ls-files", "-z"], { cwd: repo, encoding: "utf8" })
    .stdout.split("\0")
    .filter((file) => file && !ignored(file) && existsSync(join(repo, file)));
}

/** Runs the Dockerfile's stages under `tmp`; throws on the first step that fails. */
export function replay(repo: string, tmp: string, hostEnv: Record<string, string | undefined>): Image {
  const files = buildContext(repo);
  const stages: Stage[] = [];
  const image = { stages, user: "root", expose: "", aptPackages: [] as string[], healthcheck: [] as string[], entrypoint: [] as string[], cmd: [] as string[] };
  const at = (stage: Stage, path: string) => join(stage.root, posix.resolve(stage.workdir, path));
  const mappedEnv = (stage: Stage) => Object.fromEntries(Object.entries(stage.env).map(([k, v]) => [k, v.startsWith(`${stage.workdir}/`) ? at(stage, v) : v]));

  for (const { op, args } of instructions(readFileSync(join(repo, "Dockerfile"), "utf8"))) {
    const stage = stages.at(-1)!;
    if (op === "FROM") {
      const [, from, name] = /^(\S+)\s+AS\s+(\S+)$/i.exec(args)!;
      stages.push({ name: name!, image: from!, root: join(tmp, name!), workdir: "/", env: {} });
      mkdirSync(join(tmp, name!));
      image.user = "root";
    } else if (op === "WORKDIR") {
      stage.workdir = posix.resolve(stage.workdir, args);
      mkdirSync(at(stage, "."), { recursive: true });
    } else if (op === "ENV") {
      for (const [, k, v] of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) stage.env[k!] = v!.replace(/^"|"$/g, "");
    } else if (op === "COPY") {
      copy(stage, flags(args), files);
    } else if (op === "RUN") {
      run(stage, flags(args)[1]);
    } else if (op === "USER") image.user = args;
    else if (op === "EXPOSE") image.expose = args;
    else if (op === "HEALTHCHECK") image.healthcheck = execForm(flags(args)[1].replace(/^CMD\s+/, ""));
    else if (op === "ENTRYPOINT") image.entrypoint = execForm(args);
    else if (op === "CMD") image.cmd = execForm(args);
    else throw new Error(`the replay does not know ${op}`);
  }
  const final = stages.at(-1)!;
  return { ...image, at: (path) => at(final, path), env: mappedEnv(final) };

  function copy(stage: Stage, [{ from }, rest]: [Record<string, string>, string], context: string[]) {
    const sources = rest.split(/\s+/);
    const dest = sources.pop()!;
    for (const src of sources) {
      if (from) {
        cpSync(at(stages.find((s) => s.name === from)!, src), at(stage, dest), { recursive: true });
        continue;
      }
      const s = posix.normalize(src).replace(/\/$/, "");
      const picked = context.filter((f) => s === "." || f === s || f.startsWith(`${s}/`));
      if (picked.length === 0) throw new Error(`COPY ${src}: nothing in the build context`);
      for (const f of picked) {
        const target = f !== s ? posix.join(dest, s === "." ? f : f.slice(s.length + 1)) : dest.endsWith("/") ? posix.join(dest, posix.basename(f)) : dest;
        mkdirSync(dirname(at(stage, target)), { recursive: true });
        cpSync(join(repo, f), at(stage, target));
      }
    }
  }

  function run(stage: Stage, script: string) {
    if (/\bapt-get\b/.test(script)) {
      const packages = /apt-get install\s+(.*?)(?:&&|$)/.exec(script)?.[1]?.split(/\s+/).filter((p) => p && !p.startsWith("-")) ?? [];
      for (const p of packages) if (spawnSync("dpkg", ["-s", p]).status !== 0) throw new Error(`${p} (apt-get in the Dockerfile) must be on this host`);
      image.aptPackages.push(...packages);
      return;
    }
    const env = { ...hostEnv, ...mappedEnv(stage) } as NodeJS.ProcessEnv;
    const result = spawnSync("bash", ["-euo", "pipefail", "-c", `chown() { :; }\n${script}`], { cwd: at(stage, "."), env, encoding: "utf8", maxBuffer: 64 << 20, timeout: 4 * 60_000 });
    if (result.status !== 0) throw new Error(`RUN ${script} in ${stage.name}\n${result.stdout}\n${result.stderr}`);
  }
}
