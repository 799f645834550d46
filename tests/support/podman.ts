/**
 * The real image, for tests/ops/image*.spec.ts: built from the Dockerfile with podman (layer cache
 * kept between runs, so a rebuild after a change costs only the layers that changed) and run as an
 * operator would run it. Where Docker Hub cannot be reached, the node base image is made locally
 * first (scripts/container/stand-in-base.sh). Flags every podman call here needs on these machines
 * (no CAP_SYS_RESOURCE, hybrid cgroups): runc, host network, explicit ulimits.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO } from "./server";

const run = promisify(execFile);
// podman's default ulimits exceed what root may set here, so each is set explicitly, below this
// process's own hard limits. Open files as many as allowed (up to 65536): npm install in the build
// fails with EMFILE at 1024 when the machine is busy.
const hardLimit = (flag: string) => Number(execFileSync("sh", ["-c", `ulimit -H${flag}`], { encoding: "utf8" }).trim()) || 65_536;
const nofile = Math.min(hardLimit("n"), 65_536);
const FLAGS = ["--runtime", "runc", "--network", "host", "--ulimit", "nproc=1024:1024", "--ulimit", `nofile=${nofile}:${nofile}`];
/** Ours alone, so two checkouts (E2E_PORT_BASE) never touch each other's containers. */
const prefix = `agency-site-e2e-${process.env.E2E_PORT_BASE ?? 3100}`;
/**
 * Making base images and building are done by one test process at a time (flock), whichever spec
 * file and Playwright worker asks first: the next one waits, then finds everything in the cache.
 */
const BUILD_LOCK = join(tmpdir(), "agency-site-image.lock");

export async function podman(args: string[], { timeout = 60_000 } = {}): Promise<string> {
  const { stdout } = await run("podman", args, { timeout, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** `podman run --rm` of the image with these machines' flags; resolves with its output. */
export const runOnce = (image: string, command: string[], options: string[] = []) => podman(["run", "--rm", ...FLAGS, ...options, image, ...command]);

/** podman's answer whether it succeeded or not: exit code and output. */
export async function podmanTry(args: string[], { timeout = 60_000 } = {}) {
  try {
    const { stdout, stderr } = await run("podman", args, { timeout, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** The Dockerfile's `FROM` images in order, fully named; the last is the runtime stage's base. */
export const baseImages = () =>
  [...readFileSync(join(REPO, "Dockerfile"), "utf8").matchAll(/^FROM\s+(\S+)/gim)]
    .map((m) => m[1]!)
    .map((ref) => (ref.includes("/") ? ref : `docker.io/library/${ref}`));

/** Pulls each `FROM` image; where that fails (no Docker Hub here), makes the local stand-in. */
async function ensureBaseImages() {
  let missing = false;
  for (const full of new Set(baseImages())) {
    if ((await podmanTry(["image", "exists", full])).code === 0) continue;
    if ((await podmanTry(["pull", "-q", full], { timeout: 5 * 60_000 })).code !== 0) missing = true;
  }
  if (missing) await run("flock", [BUILD_LOCK, "bash", join(REPO, "scripts/container/stand-in-base.sh"), join(REPO, "Dockerfile")], { timeout: 10 * 60_000 });
}

/** Builds the Dockerfile (docker format, so HEALTHCHECK is kept); resolves with the image id. */
export async function buildImage(): Promise<string> {
  await ensureBaseImages();
  const tmp = mkdtempSync(join(tmpdir(), "agency-site-image-"));
  // The build reaches the npm registry through this machine's own npm settings, where it has any.
  const npmrc = [
    ["/etc/npmrc", "/usr/local/etc/npmrc"],
    [join(process.env.HOME ?? "/root", ".npmrc"), "/root/.npmrc"],
  ]
    .filter(([host]) => existsSync(host!))
    .flatMap(([host, inside]) => ["-v", `${host}:${inside}:ro`]);
  try {
    await run(
      "flock",
      [BUILD_LOCK, "podman", "build", ...FLAGS, ...npmrc, "--format", "docker", "--layers", "--iidfile", join(tmp, "iid"), "-t", "agency-site:test", REPO],
      { timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 },
    );
    return readFileSync(join(tmp, "iid"), "utf8").trim();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export interface Container {
  name: string;
  logs(): Promise<string>;
  /** `podman inspect` of one field, e.g. "{{.State.ExitCode}}". */
  inspect(format: string): Promise<string>;
  exec(...command: string[]): Promise<string>;
}

/**
 * Starts the image as an operator would: read-only root, `volume` (a named volume) on /app/data,
 * the image's own ENTRYPOINT and CMD. `id` starts with the spec's scope (see removeAll).
 */
export async function startContainer(
  image: string,
  id: string,
  { volume, env = {}, readOnly = true }: { volume: string; env?: Record<string, string>; readOnly?: boolean },
): Promise<Container> {
  const name = `${prefix}-${id}`;
  await podmanTry(["rm", "-f", "-t", "0", name]);
  const envFlags = Object.entries(env).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
  // The health check's timer needs systemd, which these machines lack: run it on demand instead.
  await podman([
    "run",
    "-d",
    "--name",
    name,
    ...FLAGS,
    ...(readOnly ? ["--read-only"] : []),
    "--health-interval",
    "disable",
    "-v",
    `${volume}:/app/data`,
    ...envFlags,
    image,
  ]);
  return {
    name,
    logs: async () => (await podmanTry(["logs", name])).stdout,
    inspect: async (format) => (await podman(["inspect", "--format", format, name])).trim(),
    exec: (...command) => podman(["exec", name, ...command]),
  };
}

/** A fresh named volume of ours (podman copies the image's /app/data owner and mode into it). */
export async function freshVolume(id: string): Promise<string> {
  const name = `${prefix}-${id}`;
  await podmanTry(["volume", "rm", "-f", name]);
  await podman(["volume", "create", name]);
  return name;
}

/**
 * Removes the containers and volumes of one spec file (ids starting with `scope`-), so that spec
 * files running in parallel workers leave each other's alone.
 */
export async function removeAll(scope: string) {
  const mine = (name: string) => name.startsWith(`${prefix}-${scope}-`);
  const containers = (await podmanTry(["ps", "-a", "--format", "{{.Names}}"])).stdout.split("\n").filter(mine);
  if (containers.length) await podmanTry(["rm", "-f", "-t", "0", ...containers]);
  const volumes = (await podmanTry(["volume", "ls", "--format", "{{.Name}}"])).stdout.split("\n").filter(mine);
  if (volumes.length) await podmanTry(["volume", "rm", "-f", ...volumes]);
}
