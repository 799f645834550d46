/**
 * The real image, for tests/ops/image.spec.ts and compose.spec.ts, built by
 * scripts/container/test-image.mjs (which scripts/test.sh runs before the tests, so here it is
 * found in podman's cache), and run as an operator would run it, with the flags every podman call
 * needs on these machines.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { FLAGS } from "../../scripts/container/test-image.mjs";

export { baseImages, buildImage, FLAGS, postgresImage } from "../../scripts/container/test-image.mjs";

/** Ours alone, so two checkouts (E2E_PORT_BASE) never touch each other's containers. */
export const PREFIX = `agency-site-e2e-${process.env.E2E_PORT_BASE ?? 3100}`;
/** Each container carries the test run's id, so the run's end finds any left (scripts/test-run.mjs). */
const runLabel = process.env.AGENCY_TEST_RUN ? ["--label", `AGENCY_TEST_RUN=${process.env.AGENCY_TEST_RUN}`] : [];

/** podman's answer whether it succeeded or not: exit code and output. */
export function podmanTry(args: string[], options: { timeout?: number; env?: NodeJS.ProcessEnv; command?: string } = {}) {
  const { timeout = 60_000, env, command = "podman" } = options;
  return promisify(execFile)(command, args, { timeout, env, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({
      code: typeof e.code === "number" ? e.code : -1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    }),
  );
}

/** podman's output; a failure throws, with what podman said. */
export async function podman(args: string[], options?: Parameters<typeof podmanTry>[1]) {
  const { code, stdout, stderr } = await podmanTry(args, options);
  if (code !== 0) throw Object.assign(new Error(`${options?.command ?? "podman"} ${args.join(" ")}: exit ${code}\n${stderr}`), { stderr });
  return stdout;
}

/** `podman run --rm` of the image with these machines' flags; resolves with its output. */
export const runOnce = (image: string, command: string[]) => podman(["run", "--rm", ...FLAGS, ...runLabel, image, ...command]);

export type Container = Awaited<ReturnType<typeof startContainer>>;

/**
 * The image started as an operator starts it: read-only root, a named volume on /app/data (a
 * fresh one, or `volume`: a container's before it), the image's own ENTRYPOINT and CMD. It and a
 * fresh volume are removed by `undo` (startedByEachTest's) after the test.
 */
export async function startContainer(
  image: string,
  id: string,
  { env, volume }: { env: Record<string, string>; volume?: string },
  undo: (f: () => unknown) => void,
) {
  const name = `${PREFIX}-${id}`;
  if (!volume) {
    volume = name;
    await podmanTry(["volume", "rm", "-f", volume]);
    await podman(["volume", "create", volume]);
    undo(() => podmanTry(["volume", "rm", "-f", name]));
  }
  await podmanTry(["rm", "-f", "-t", "0", name]);
  undo(() => podmanTry(["rm", "-f", "-t", "0", name]));
  const envFlags = Object.entries(env).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
  // The health check's timer needs systemd, which these machines lack: it is run on demand instead.
  await podman([
    "run",
    "-d",
    "--name",
    name,
    ...FLAGS,
    ...runLabel,
    "--read-only",
    "--health-interval",
    "disable",
    "-v",
    `${volume}:/app/data`,
    ...envFlags,
    image,
  ]);
  return {
    name,
    volume,
    logs: async () => (await podmanTry(["logs", name])).stdout,
    /** `podman inspect` of one field, e.g. "{{.State.ExitCode}}". */
    inspect: async (format: string) => (await podman(["inspect", "--format", format, name])).trim(),
  };
}
