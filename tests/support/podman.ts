/**
 * The real image (scripts/container/test-image.mjs builds it before the tests) for image.spec and
 * compose.spec, run as an operator would, with the flags every podman call needs on these machines.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { FLAGS } from "../../scripts/container/test-image.mjs";

export { baseImages, buildImage, FLAGS, postgresImage } from "../../scripts/container/test-image.mjs";

/** Ours alone, so two checkouts (E2E_PORT_BASE) never touch each other's containers. */
const PREFIX = `agency-site-e2e-${process.env.E2E_PORT_BASE ?? 3100}`;
/** Each container carries the test run's id, so the run's end finds any left (scripts/test-run.mjs). */
const runLabel = process.env.AGENCY_TEST_RUN ? ["--label", `AGENCY_TEST_RUN=${process.env.AGENCY_TEST_RUN}`] : [];

const run = promisify(execFile);
type Options = { timeout?: number; env?: NodeJS.ProcessEnv; command?: string };
/** podman's output (or `command`'s: podman-compose); a failure rejects with its code, stdout and stderr. */
export const podman = async (args: string[], { timeout = 60_000, env, command = "podman" }: Options = {}) =>
  (await run(command, args, { timeout, env, maxBuffer: 64 * 1024 * 1024 })).stdout;

/** podman's answer whether it succeeded or not: exit code and output. */
export const podmanTry = (args: string[]) =>
  run("podman", args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" }),
  );

/** `podman run --rm` of the image with these machines' flags; resolves with its output. */
export const runOnce = (image: string, command: string[]) => podman(["run", "--rm", ...FLAGS, ...runLabel, image, ...command]);

export type Container = Awaited<ReturnType<typeof startContainer>>;

/**
 * The image started as an operator starts it, with `env`: read-only root, a named volume on
 * /app/data (fresh, or `volume`, a container's before it); it and a fresh volume removed by `undo`.
 */
export async function startContainer(image: string, id: string, env: Record<string, string>, undo: (f: () => unknown) => void, volume?: string) {
  const name = `${PREFIX}-${id}`;
  if (!volume) {
    volume = name;
    await podmanTry(["volume", "rm", "-f", volume]);
    await podman(["volume", "create", volume]);
    undo(() => podmanTry(["volume", "rm", "-f", name]));
  }
  await podmanTry(["rm", "-f", "-t", "0", name]);
  undo(() => podmanTry(["rm", "-f", "-t", "0", name]));
  // The health check's timer needs systemd, which these machines lack: it is run on demand instead.
  const flags = ["--read-only", "--health-interval", "disable", "-v", `${volume}:/app/data`, ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`])];
  await podman(["run", "-d", "--name", name, ...FLAGS, ...runLabel, ...flags, image]);
  return {
    name,
    volume,
    logs: async () => (await podmanTry(["logs", name])).stdout,
    /** `podman inspect` of one field, e.g. "{{.State.ExitCode}}". */
    inspect: async (format: string) => (await podman(["inspect", "--format", format, name])).trim(),
  };
}
