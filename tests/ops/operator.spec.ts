/**
 * What an operator sets, reads and runs, with real processes: a bad setting stops the server
 * before it listens, with one line naming it; the JSON log says when a lead is stored and
 * delivered, never the key or what was typed; `npm run leads` lists, re-queues and releases
 * leads; past LEADS_PER_HOUR leads are held; the privacy notice names the form service and the
 * retention the server is started with. Each test starts its own server from build/ (opsPort
 * 10-11, 18-19, 24-25 and 75; fake form services opsPort 54, 55 and 84).
 */
import { expect, test } from "@playwright/test";
import { startFakeFormService } from "../support/fake-form-service";
import { accepts, dataDir, events, keyed, leadsCommand, postContact, serve, sleep } from "../support/server";
import { opsPort, TEST_ACCESS_KEY } from "../support/sites";

for (const [name, value, port] of [
  ["FORM_ENDPOINT", "not-a-url", opsPort(10)],
  ["FORM_PROVIDER", "carrier-pigeon", opsPort(11)],
] as const) {
  test(`${name}=${value} stops the server with exit code 1 and one line naming ${name}, before it listens`, async () => {
    const server = serve(port, { [name]: value });
    try {
      // The port is tried until the process has exited, however long its start takes: what counts
      // is that it never listened, not how soon it stopped (a process that does not stop fails
      // the test at its timeout).
      let accepted = false;
      let done = false;
      void server.exited.then(() => (done = true));
      while (!done) {
        accepted ||= await accepts(port);
        await sleep(20); // how often the port is tried
      }
      const { code } = await server.exited;
      expect(code).toBe(1);
      expect(accepted, "the port accepted a connection").toBe(false);
      expect(server.stdout()).not.toContain('"event":"start"');
      const lines = server.stderr().trim().split("\n");
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0]!) as { event: string; error: string };
      expect(line.event).toBe("config_invalid");
      expect(line.error).toContain(`${name} must be`);
      expect(line.error).not.toContain(value);
    } finally {
      server.kill();
    }
  });
}

test("npm run leads lists a parked lead and re-queues it, with the server running, after the key is fixed", async () => {
  const fake = await startFakeFormService({ port: opsPort(54) });
  fake.setMode("unauthorized");
  const dir = dataDir();
  const server = serve(opsPort(18), keyed(fake, dir));
  const leads = leadsCommand(dir);
  try {
    await server.listening;
    expect((await postContact(server.url, "Call me about Zoho (cli)")).status).toBe(303);
    await expect.poll(async () => (await leads("list")).stdout).toMatch(/\tcontact\tparked\t0m\t\S+\thttp 401\t\S*\n/);
    expect((await leads("export")).stdout).toContain("Call me about Zoho (cli)");
    fake.setMode("ok");
    expect((await leads("retry")).stdout).toMatch(/^re-queued 1 lead/);
    await expect.poll(() => fake.accepted("(cli)").length, { timeout: 15_000 }).toBe(1);
    expect((await leads("list")).stdout.trim().split("\n")).toHaveLength(1); // the header alone
  } finally {
    server.kill();
    await fake.close();
  }
});

test("logs: a JSON start line, then a line when a lead is stored and when it is delivered, never the key or what was typed", async () => {
  const fake = await startFakeFormService({ port: opsPort(55) });
  const server = serve(opsPort(19), keyed(fake, dataDir()));
  const message = "Our confidential product launch needs SEO before 1 March (log-test).";
  try {
    await server.listening;
    expect(events(server.stdout()).filter((e) => e.event === "start")).toEqual([
      expect.objectContaining({ level: "info", delivery: expect.objectContaining({ to: "provider" }) }),
    ]);
    expect((await postContact(server.url, message)).status).toBe(303);
    await expect.poll(() => events(server.stdout()).filter((e) => e.event === "lead_delivered").length).toBe(1);
    server.child.kill("SIGTERM");
    await server.exited;
    const [stored] = events(server.stdout()).filter((e) => e.event === "lead_stored");
    expect(stored).toMatchObject({ level: "info", kind: "contact", id: expect.stringMatching(/^\d{8}-[0-9A-Z]{8}$/) });
    expect(events(server.stdout()).find((e) => e.event === "lead_delivered")).toMatchObject({ id: stored!.id, provider: "web3forms", status: 200, attempt: 1 });
    for (const stream of [server.stdout(), server.stderr()])
      expect(stream).not.toMatch(new RegExp(`${TEST_ACCESS_KEY}|confidential product launch|Ada Lovelace|ada@example.com`));
    expect((fake.accepted("log-test")[0] as { message: string }).message).toContain(`Reference: ${stored!.id as string}`);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("past LEADS_PER_HOUR leads are thanked and stored but held; one line tells the operator; npm run -s leads -- discard exports and removes one, release sends the other", async () => {
  const fake = await startFakeFormService({ port: opsPort(84) });
  const dir = dataDir();
  const server = serve(opsPort(75), keyed(fake, dir, { LEADS_PER_HOUR: "2" }));
  const leads = leadsCommand(dir);
  try {
    await server.listening;
    for (let i = 1; i <= 4; i++) expect((await postContact(server.url, `Ceiling ${i} (ceiling-${i}).`, { localAddress: `127.0.5.${i}` })).status).toBe(303);
    await expect.poll(() => fake.accepted("ceiling-").length).toBe(2);
    // The line is written as the third lead is stored, but reaches this process's pipe when it
    // does: looked for until it is there (the server's later lines show only one was written).
    await expect.poll(() => events(server.stdout()).filter((e) => e.event === "leads_held")).toEqual([expect.objectContaining({ level: "error", perHour: 2 })]);
    expect(JSON.parse((await leads("status")).stdout)).toMatchObject({ pending: 0, held: 2 });
    // Each held lead with the rule that held it and its address's code (a keyed hash, never the address).
    const held = (await leads("list")).stdout
      .split("\n")
      .filter((line) => line.includes("\theld\t"))
      .map((line) => line.split("\t"));
    expect(held.map(([, kind, status, age, , reason, code]) => [kind, status, age, reason, code])).toEqual([
      ["contact", "held", "0m", "ceiling", expect.stringMatching(/^[\w-]{22}$/)],
      ["contact", "held", "0m", "ceiling", expect.stringMatching(/^[\w-]{22}$/)],
    ]);
    expect(held[0]![6]).not.toBe(held[1]![6]);
    // Nothing sends a held lead: the loop's next look (every 2 s, pollMs) falls within 3 s, and
    // would claim them if it took held leads for pending ones.
    await sleep(3_000);
    expect(fake.accepted("ceiling-")).toHaveLength(2);
    expect(
      events(server.stdout()).filter((e) => e.event === "leads_held"),
      "one line for the episode",
    ).toHaveLength(1);
    // One discarded by its address code, written out in full first; a lead not held (delivered) is refused.
    const delivered = /Reference: ([\w-]+)/.exec(JSON.stringify(fake.accepted("ceiling-1")))![1]!;
    await expect(leads("discard", delivered)).rejects.toMatchObject({ code: 1, stdout: "" });
    const discarded = await leads("discard", held[0]![6]!);
    expect([
      discarded.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as object),
      discarded.stderr,
    ]).toEqual([
      [expect.objectContaining({ id: held[0]![0], status: "held", reason: "ceiling", text: expect.stringContaining("(ceiling-3)") })],
      "discarded 1 lead(s)\n",
    ]);
    expect((await leads("release")).stdout).toMatch(/^released 1 lead/);
    await expect.poll(() => fake.accepted("ceiling-").length, { timeout: 10_000 }).toBe(3);
    expect(fake.accepted("ceiling-3")).toEqual([]);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("the privacy notice names the form service and the retention the server is started with, in the page and in its data", async () => {
  const webhook = serve(opsPort(24), {
    FORM_PROVIDER: "webhook",
    FORM_ENDPOINT: "https://hooks.example.net/kopano",
    FORM_ACCESS_KEY: "k",
    LEAD_RETENTION_DAYS: "7",
  });
  const outbox = serve(opsPort(25)); // no key: every form stays in the outbox on this server
  try {
    await Promise.all([webhook.listening, outbox.listening]);
    const text = async (url: string) => (await (await fetch(url)).text()).replace(/<[^>]+>/g, "");
    for (const url of [`${webhook.url}/privacy`, `${webhook.url}/privacy?_data=routes%2Fprivacy`]) {
      const notice = await text(url);
      expect(notice, url).toContain("hooks.example.net");
      expect(notice, url).not.toContain("Web3Forms");
    }
    const page = await text(`${webhook.url}/privacy`);
    expect(page).toContain("our form service at hooks.example.net");
    expect(page).toContain("then kept for 7 days");
    const kept = await text(`${outbox.url}/privacy`);
    expect(kept).not.toMatch(/form service|Web3Forms/);
    expect(kept).toContain("our server stores it, and our team reads it there");
  } finally {
    webhook.kill();
    outbox.kill();
  }
});
