/**
 * What an operator sets and runs, with real processes: a setting that cannot work stops the start
 * with one line naming it; past LEADS_PER_HOUR leads are held, and `npm run -s leads` lists,
 * discards, releases and re-queues beside the running server; the privacy notice names the form
 * service and retention. (Each setting: config.test.ts; log and metrics: metrics.spec.) opsPort 10-11, 24, 75.
 */
import { execFileSync } from "node:child_process";
import { expect, test } from "@playwright/test";
import { accepts, dataDir, deliveredOnce, events, keyed, leadsCommand, listed, postContact, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { fakeService, site } = startedByEachTest();

test("a setting that cannot work stops the server with exit code 1 and one line naming it, never its value, before it listens; a provider named without its key is one", async () => {
  const cases: { port: number; env: Record<string, string>; named: string }[] = [
    { port: opsPort(10), env: { FORM_ENDPOINT: "not-a-url" }, named: "FORM_ENDPOINT" },
    // It once served for good and wrote every lead to the outbox (issue 47, trap 8).
    { port: opsPort(11), env: { FORM_PROVIDER: "webhook", FORM_ENDPOINT: "https://hooks.example.net/leads" }, named: "FORM_ACCESS_KEY" },
  ];
  await Promise.all(
    cases.map(async ({ port, env, named }) => {
      const server = site(port, env);
      // Tried until it exits: what counts is that it never listened, not how soon it stopped.
      let [accepted, done] = [false, false];
      void server.exited.then(() => (done = true));
      while (!done) {
        accepted ||= await accepts(port);
        await sleep(20); // how often the port is tried
      }
      expect([(await server.exited).code, accepted, server.stdout()], named).toEqual([1, false, expect.not.stringContaining('"event":"start"')]);
      const lines = server.stderr().trim().split("\n");
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { event: string; error: string };
      expect([line.event, line.error]).toEqual(["config_invalid", expect.stringContaining(`${named} must be`)]);
      expect(line.error).not.toContain(env.FORM_ENDPOINT);
    }),
  );
});

test("past LEADS_PER_HOUR leads are thanked and stored but held, with one line; npm run -s leads -- lists them and a parked lead with the service's status, discards a held one (written out as export writes it), releases the other and re-queues the parked one, beside the running server", async () => {
  const fake = await fakeService();
  fake.setMode("unauthorized", undefined, "(parked)"); // a wrong key, for this lead only: parked
  const dir = dataDir();
  const server = site(opsPort(75), keyed(fake, dir, { LEADS_PER_HOUR: "3" }));
  const leads = leadsCommand(dir);
  await server.listening;
  // The parked lead is the hour's first of three; the last two of the ceiling's are held.
  expect((await postContact(server.url, "Call me about Zoho (parked).", { localAddress: "127.0.5.9" })).status).toBe(303);
  for (let i = 1; i <= 4; i++) expect((await postContact(server.url, `Ceiling ${i} (ceiling-${i}).`, { localAddress: `127.0.5.${i}` })).status).toBe(303);
  await expect.poll(() => fake.accepted("ceiling-").length).toBe(2);
  const said = (event: string) => events(server.stdout()).filter((e) => e.event === event);
  await expect.poll(() => said("leads_held")).toEqual([expect.objectContaining({ level: "error", perHour: 3 })]);
  await expect.poll(() => said("lead_parked")).toEqual([expect.objectContaining({ reason: "http", status: 401 })]);
  // From here nothing may send a held lead: the loop's next look (every 2 s) falls in the next 3 s.
  const heldSince = Date.now();
  const rows = await listed(dir);
  // No lead pending; each held one with the rule that held it and its address's code (a keyed hash, never the address); the parked one with the service's status.
  expect(rows.map(([, kind, status, age, , reason]) => `${kind} ${status} ${age} ${reason}`).sort()).toEqual([
    "contact held 0m ceiling",
    "contact held 0m ceiling",
    "contact parked 0m http 401",
  ]);
  const held = rows.filter((row) => row[2] === "held");
  expect(held.map((row) => row[6])).toEqual([expect.stringMatching(/^[\w-]{22}$/), expect.stringMatching(/^[\w-]{22}$/)]);
  expect(held[0]![6]).not.toBe(held[1]![6]);

  // One discarded by its address code, written out in full first (a lead not held is refused: cli.test).
  const discarded = await leads("discard", held[0]![6]!);
  const written = discarded.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as object);
  expect([written, discarded.stderr]).toEqual([
    [expect.objectContaining({ id: held[0]![0], status: "held", reason: "ceiling", text: expect.stringContaining("(ceiling-3)") })],
    "discarded 1 lead(s)\n",
  ]);
  await sleep(3_000 - (Date.now() - heldSince));
  expect(fake.accepted("ceiling-")).toHaveLength(2);
  expect(said("leads_held").length, "one line for the episode").toBe(1);

  fake.setMode("ok", undefined, "(parked)"); // the key put right
  expect((await leads("release")).stdout).toMatch(/^released 1 lead/);
  expect((await leads("retry")).stdout).toMatch(/^re-queued 1 lead/);
  await deliveredOnce(fake, ["ceiling-4", "(parked)"]);
  expect(fake.accepted("ceiling-3")).toEqual([]);
});

test("the privacy notice names the form service and the retention the server is started with, in the page and in its data; without METRICS_PORT no metrics listener is opened", async () => {
  const env = { FORM_PROVIDER: "webhook", FORM_ENDPOINT: "https://hooks.example.net/kopano", FORM_ACCESS_KEY: "k", LEAD_RETENTION_DAYS: "7" };
  const server = site(opsPort(24), env);
  await server.listening;
  const text = async (url: string) => (await (await fetch(url)).text()).replace(/<[^>]+>/g, "");
  for (const url of [`${server.url}/privacy`, `${server.url}/privacy?_data=routes%2Fprivacy`]) {
    const notice = await text(url);
    expect(notice, url).toContain("hooks.example.net");
    expect(notice, url).not.toContain("Web3Forms");
  }
  const page = await text(`${server.url}/privacy`);
  expect(page).toContain("our form service at hooks.example.net");
  expect(page).toContain("then kept for 7 days");
  // Every TCP port the process listens on (ss names the owner of each listening socket).
  const listening = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(`pid=${server.child.pid},`))
    .map((line) => Number(/:(\d+)\s/.exec(line)?.[1]));
  expect(listening).toEqual([server.port]);
  expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
});
