/**
 * The image the tests run (tests/ops/image*.spec.ts), built from the Dockerfile with podman: the
 * node base images pulled, or made locally where Docker Hub cannot be reached
 * (stand-in-base.sh), then `podman build` with its layer cache, so a rebuild after a change costs
 * only the layers that changed. scripts/test.sh runs this before the tests start (`node
 * scripts/container/test-image.mjs`): minutes on a new machine, seconds after; the specs then
 * find it built; and compose.yaml's PostgreSQL image, or its stand-in. Also the flags every podman call needs on these machines (no
 * CAP_SYS_RESOURCE, hybrid cgroups): runc, host network, explicit ulimits.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
// podman's default ulimits exceed what root may set here, so each is set explicitly, below this
// process's own hard limits. Open files as many as allowed (up to 65536): npm install in the build
// fails with EMFILE at 1024 when the machine is busy.
const hardLimit = (flag) => Number(execFileSync("sh", ["-c", `ulimit -H${flag}`], { encoding: "utf8" }).trim()) || 65_536;
const nofile = Math.min(hardLimit("n"), 65_536);
export const FLAGS = ["--runtime", "runc", "--network", "host", "--ulimit", "nproc=1024:1024", "--ulimit", `nofile=${nofile}:${nofile}`];
const IMAGE = "agency-site:test";
/**
 * Making base images and building are done by one process at a time (flock), whichever asks
 * first: the next one waits, then finds everything in the cache.
 */
const BUILD_LOCK = join(tmpdir(), "agency-site-image.lock");

/** podman's answer whether it succeeded or not. */
const succeeds = (args, timeout = 60_000) =>
  run("podman", args, { timeout }).then(
    () => true,
    () => false,
  );

/** The Dockerfile's `FROM` images in order, fully named; the last is the runtime stage's base. */
export const baseImages = () =>
  [...readFileSync(join(REPO, "Dockerfile"), "utf8").matchAll(/^FROM\s+(\S+)/gim)]
    .map((m) => m[1])
    .map((ref) => (ref.includes("/") ? ref : `docker.io/library/${ref}`));

/** Pulls each `FROM` image; where that fails (no Docker Hub here), makes the local stand-in. */
async function ensureBaseImages() {
  let missing = false;
  for (const full of new Set(baseImages())) {
    if (await succeeds(["image", "exists", full])) continue;
    if (!(await succeeds(["pull", "-q", full], 5 * 60_000))) missing = true;
  }
  if (missing) await run("flock", [BUILD_LOCK, "bash", join(REPO, "scripts/container/stand-in-base.sh"), join(REPO, "Dockerfile")], { timeout: 10 * 60_000 });
}

/** compose.yaml's PostgreSQL image, which tests/ops/compose.spec.ts runs. */
const POSTGRES_IMAGE = "docker.io/library/postgres:17-bookworm";

/**
 * compose.yaml's PostgreSQL image: pulled, or where that fails (no Docker Hub here), a stand-in
 * under the same name built from scripts/container/postgres-stand-in (Debian's PostgreSQL on the
 * node stand-in), as the node base images are made. Resolves with its name.
 */
export async function postgresImage() {
  if ((await succeeds(["image", "exists", POSTGRES_IMAGE])) || (await succeeds(["pull", "-q", POSTGRES_IMAGE], 5 * 60_000))) return POSTGRES_IMAGE;
  await ensureBaseImages();
  await build(["-t", POSTGRES_IMAGE, join(REPO, "scripts/container/postgres-stand-in")], 10 * 60_000);
  return POSTGRES_IMAGE;
}

/** `podman build` under the lock, in docker format (so HEALTHCHECK is kept), with its layer cache. */
const build = (args, timeout) =>
  run("flock", [BUILD_LOCK, "podman", "build", ...FLAGS, "--format", "docker", "--layers", ...args], { timeout, maxBuffer: 64 * 1024 * 1024 });

/** Builds the Dockerfile; resolves with the image id. */
export async function buildImage() {
  await ensureBaseImages();
  const tmp = mkdtempSync(join(tmpdir(), "agency-site-image-"));
  // The build reaches the npm registry through this machine's own npm settings, where it has any.
  const npmrc = [
    ["/etc/npmrc", "/usr/local/etc/npmrc"],
    [join(process.env.HOME ?? "/root", ".npmrc"), "/root/.npmrc"],
  ]
    .filter(([host]) => existsSync(host))
    .flatMap(([host, inside]) => ["-v", `${host}:${inside}:ro`]);
  try {
    await build([...npmrc, "--iidfile", join(tmp, "iid"), "-t", IMAGE, REPO], 15 * 60_000);
    return readFileSync(join(tmp, "iid"), "utf8").trim();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(`${IMAGE} ${(await buildImage()).slice(0, 12)}`);
    console.log(await postgresImage());
  } catch (error) {
    console.error(error.stderr?.slice(-4_000) || error.message);
    process.exit(1);
  }
}
