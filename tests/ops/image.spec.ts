/**
 * The real image: built from the Dockerfile with podman (tests/support/podman.ts) and run as an
 * operator runs it, with a read-only root, a named volume on /app/data and the host's network.
 * The fake form service listens on the host's loopback, which the containers share. The one test
 * file allowed a long timeout: the first build on a fresh machine takes minutes; after that
 * podman's layer cache makes a rebuild cost only the layers that changed. Ports: opsPort(60-62).
 */
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { type FakeFormService, startFakeFormService } from "../support/fake-form-service";
import { baseImages, buildImage, type Container, freshVolume, podman, podmanTry, removeAll, runOnce, startContainer } from "../support/podman";
import { deliveredOnce, events, postContact, REPO } from "../support/server";
import { opsPort, TEST_ACCESS_KEY } from "../support/sites";

const PORT = opsPort(60);
const METRICS = opsPort(61);
const url = `http://127.0.0.1:${PORT}`;
/** What the image may add to its Node base image: the server, its packages and tini. */
const MAX_ADDED_BYTES = 60_000_000;

/**
 * The lockfile's packages that a production install needs: the root's dependencies, then theirs
 * and their optional ones, found as Node finds them (the nearest node_modules upwards). Peers are
 * not followed: a peer nothing else asks for (typescript, for Remix) is not needed at run time.
 */
function productionPackages(): Set<string> {
  type Entry = { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
  const { packages } = JSON.parse(readFileSync(join(REPO, "package-lock.json"), "utf8")) as { packages: Record<string, Entry> };
  const parent = (dir: string) => dir.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, "");
  const locate = (from: string, name: string): string | undefined => {
    const at = `${from && `${from}/`}node_modules/${name}`;
    return packages[at] ? at : from ? locate(parent(from), name) : undefined; // undefined: for another system
  };
  const found = new Set<string>();
  const visit = (from: string) => {
    for (const name of Object.keys({ ...packages[from]!.dependencies, ...packages[from]!.optionalDependencies })) {
      const at = locate(from, name);
      if (at && !found.has(at)) {
        found.add(at);
        visit(at);
      }
    }
  };
  visit("");
  return found;
}

test.describe.serial("the container image, built and run with podman", () => {
  let image = "";
  let fake: FakeFormService;
  let volume = "";
  let first: Container;
  let second: Container;
  const env = () => ({
    PORT: String(PORT),
    METRICS_PORT: String(METRICS),
    FORM_ACCESS_KEY: TEST_ACCESS_KEY,
    FORM_ENDPOINT: fake.submitUrl,
    FORM_TIMEOUT_MS: "2000",
  });
  const serving = async (container: Container) => {
    await expect
      .poll(async () => (await fetch(`${url}/healthz`).catch(() => null))?.status, { timeout: 30_000, message: "healthz" })
      .toBe(200)
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\n${await container.logs()}`);
      });
  };

  test.beforeAll(async () => {
    // Building the image from nothing (npm install, the build, the base's packages) takes minutes.
    test.setTimeout(15 * 60_000);
    image = await buildImage();
    fake = await startFakeFormService({ port: opsPort(62) });
    await removeAll("image");
    volume = await freshVolume("image-data");
  });
  test.afterAll(async () => {
    await removeAll("image");
    await fake?.close();
  });

  test("runs Node 24 as the unprivileged node user, keeps its HEALTHCHECK, and leaves /app/data to that user alone", async () => {
    expect((await runOnce(image, ["node", "-v"])).trim()).toMatch(/^v24\./);
    expect((await podman(["image", "inspect", "--format", "{{.Config.User}}", image])).trim()).toBe("node");
    const healthcheck = JSON.parse(await podman(["image", "inspect", "--format", "{{json .Config.Healthcheck}}", image])) as { Test?: string[] } | null;
    expect(healthcheck?.Test?.join(" ")).toContain("/healthz");
    // A fresh named volume takes the image's /app/data: owned by node, closed to everyone else.
    expect((await runOnce(image, ["stat", "-c", "%U %a", "/app/data"], ["-v", `${volume}:/app/data`])).trim()).toBe("node 700");
  });

  test("adds at most 60 MB to its Node base image, and holds no development or peer-only package", async () => {
    const size = async (ref: string) => Number(await podman(["image", "inspect", "--format", "{{.Size}}", ref]));
    const base = baseImages().at(-1)!;
    const added = (await size(image)) - (await size(base));
    const layers = await podman(["history", "--format", "{{.Size}}\t{{.CreatedBy}}", image]);
    expect(added, `bytes over ${base}; the layers:\n${layers}`).toBeLessThanOrEqual(MAX_ADDED_BYTES);
    // Every package folder in the image's node_modules, e.g. node_modules/a/node_modules/@b/c.
    const listed = await runOnce(image, [
      "find",
      "node_modules",
      "-type",
      "d",
      "-regextype",
      "posix-extended",
      "-regex",
      ".*node_modules/(@[^/]+/)?[^@/.][^/]*",
    ]);
    const inImage = listed.trim().split("\n");
    expect(inImage).toContain("node_modules/@remix-run/node");
    const production = productionPackages();
    expect(inImage.filter((dir) => !production.has(dir))).toEqual([]);
  });

  test("serves with a read-only root and /app/data as a volume, every process non-root; health check passes; metrics only on their own port", async () => {
    const container = (first = await startContainer(image, "image-a", { volume, env: env() }));
    await serving(container);
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
    expect((await fetch(`${url}/`)).status).toBe(200);
    const users = (await podman(["top", container.name, "user,comm"]))
      .trim()
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/)[0]);
    expect(users.length).toBeGreaterThanOrEqual(1);
    expect(new Set(users)).toEqual(new Set(["node"]));
    const write = await podmanTry(["exec", container.name, "touch", "/app/build/x"]);
    expect([write.code === 0, write.stderr]).toEqual([false, expect.stringContaining("Read-only file system")]);
    const health = await podmanTry(["healthcheck", "run", container.name]);
    expect(health.code, `${health.stdout}${health.stderr}`).toBe(0);
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    expect(await (await fetch(`http://127.0.0.1:${METRICS}/metrics`)).text()).toMatch(/^nodejs_version_info\{[^}]*version="v24\./m);
  });

  test("a lead sent while the form service fails survives podman kill -s KILL and is delivered exactly once by the next container on the same volume", async () => {
    const token = "image-kill-9";
    fake.setMode("fail500", undefined, token);
    const answer = await postContact(url, `Please call back (${token}).`);
    expect([answer.status, answer.headers.location]).toEqual([303, expect.stringMatching(CONTACT_SENT)]);
    await expect.poll(() => fake.received(token).length, { timeout: 15_000 }).toBeGreaterThan(0);
    const metrics = await (await fetch(`http://127.0.0.1:${METRICS}/metrics`)).text();
    expect(metrics).toMatch(/^leads_accepted_total\{[^}]*kind="contact"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^leads_pending\{[^}]*\} 1$/m);

    await podman(["kill", "-s", "KILL", first.name]);
    await expect.poll(() => first.inspect("{{.State.Running}}")).toBe("false");
    expect(fake.accepted(token)).toEqual([]);

    fake.setMode("ok", undefined, token);
    second = await startContainer(image, "image-b", { volume, env: env() });
    await serving(second);
    await deliveredOnce(fake, [token], { within: 60_000 });
  });

  test("podman stop: a request in flight finishes, /healthz answers 503 on that connection, then the server exits with code 0 by itself", async () => {
    // A post whose body is still arriving when SIGTERM comes, on a keep-alive connection, as a
    // load balancer's would be.
    const body = new URLSearchParams({
      formName: "contact",
      name: "Ada",
      email: "ada@example.com",
      service: "seo",
      message: "Sent while stopping (image-stop).",
    }).toString();
    const slow = connect(PORT, "127.0.0.1");
    let reply = "";
    slow.on("data", (chunk) => (reply += chunk));
    const closed = new Promise((resolve) => slow.once("close", resolve));
    await new Promise((resolve) => slow.once("connect", resolve));
    // Expect: 100-continue makes Node answer "100 Continue" as it hands the request to the site:
    // from then on the request is in flight, its body still arriving.
    slow.write(
      `POST /?index HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\nOrigin: ${url}\r\nExpect: 100-continue\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await expect.poll(() => reply, { message: "the request in the server's hands" }).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\n$/);
    reply = "";

    const stopped = podman(["stop", "-t", "20", second.name]);
    // The server has the signal once it says so (podman's own start-up may take longer than a fixed wait).
    await expect.poll(async () => events(await second.logs()).some((e) => e.event === "stopping"), { timeout: 10_000 }).toBe(true);
    slow.write(`${body.slice(10)}GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\n\r\n`);
    await closed; // closed by the server once idle
    expect(reply).toMatch(/^HTTP\/1\.1 303 /);
    expect(reply).toMatch(/\r\n\r\nHTTP\/1\.1 503 [^]*\{"status":"unavailable"\}/);
    await stopped;
    // Code 0 is the server's own exit, in time: podman's SIGKILL at 20 s would give 137, and a stop
    // held past 13.5 s code 1 (docs/operations.md, "Stopping": within 15 s). How long podman takes
    // around it is podman's.
    expect(await second.inspect("{{.State.ExitCode}}")).toBe("0");
    expect(events(await second.logs()).map((e) => e.event)).toContain("stopped");
    await expect.poll(() => fake.accepted("image-stop").length).toBe(1);
  });
});
