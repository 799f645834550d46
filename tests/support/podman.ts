/**
 * The real image, for tests/ops/image*.spec.ts, built by scripts/container/test-image.mjs (which
 * scripts/test.sh runs before the tests, so here it is found in podman's cache), and run as an
 * operator would run it, with the flags every podman call needs on these machines.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { FLAGS } from "../../scripts/container/test-image.mjs";

export { baseImages, buildImage } from "../../scripts/container/test-image.mjs";

const run = promisify(execFile);
/** Ours alone, so two checkouts (E2E_PORT_BASE) never touch each other's containers. */
const prefix = `agency-site-e2e-${process.env.E2E_PORT_BASE ?? 3100}`;
/** Each container carries the test run's id, so the run's end finds any left (scripts/test-run.mjs). */
const runLabel = process.env.AGENCY_TEST_RUN ? ["--label", `AGENCY_TEST_RUN=${process.env.AGENCY_TEST_RUN}`] : [];

export async function podman(args: string[], { timeout = 60_000 } = {}): Promise<string> {
  const { stdout } = await run("podman", args, { timeout, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** `podman run --rm` of the image with these machines' flags; resolves with its output. */
export const runOnce = (image: string, command: string[], options: string[] = []) =>
  podman(["run", "--rm", ...FLAGS, ...runLabel, ...options, image, ...command]);

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
    ...runLabel,
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
