/**
 * FORM_PROVIDER=zoho-crm against a fake Zoho CRM (tests/support/fake-zoho-crm.ts), with the built
 * server as a real process: each lead becomes one CRM Lead with every field, and stays one
 * whatever happens to the answer, the process or the token (decision 0035). Each test starts its
 * own server (opsPort 110-113, metrics on 114) and its own fake Zoho CRM (a free port).
 */
import { expect, test } from "@playwright/test";
import { calculatorLead } from "../../app/calculator/lead.server";
import { type FakeZohoCrm, startFakeZohoCrm, zohoEnv } from "../support/fake-zoho-crm";
import { dataDir, events, leadsCommand, postContact, serve, sleep, type Served } from "../support/server";
import { opsPort } from "../support/sites";
import { atStep5, calculator, dispatchApp, progress } from "../support/wizard";

/** `npm run -s leads -- list` as rows of its columns, the header left out. */
const list = async (dir: string) =>
  (await leadsCommand(dir)("list")).stdout
    .trim()
    .split("\n")
    .slice(1)
    .map((line) => line.split("\t"));
/** A row's status, age and reason (the columns between them: arrived; after: address code). */
const statusAgeReason = (row: string[]) => [row[2], row[3], row[5]].join(" ");

/** The lead whose record in the fake holds `token`: its reference (the site's id), the record, and what the store says of it. */
async function outcome(zoho: FakeZohoCrm, dir: string, token: string) {
  const records = zoho.find(token);
  const rows = await list(dir);
  return {
    records: records.length,
    rows: rows.filter((row) => records.some((r) => r.fields.Website_Reference === row[0])).map(statusAgeReason),
  };
}

/**
 * Exactly one record for the lead marked `token`, and the site's lead delivered as that record.
 * Waited for in the server's log, then read once with the command: the store says delivered
 * before the line is written, and each look of the command starts npm and Node (seconds each on
 * a busy machine, which made a wait of looks outlast the test's 30 s).
 */
async function deliveredOnce(zoho: FakeZohoCrm, server: Served, dir: string, token: string) {
  const delivered = () => {
    const references = zoho.find(token).map((record) => record.fields.Website_Reference);
    return events(server.stdout()).some((e) => e.event === "lead_delivered" && references.includes(e.id));
  };
  await expect.poll(delivered, { timeout: 30_000, message: `${token} delivered, in the server's log` }).toBe(true);
  expect((await outcome(zoho, dir, token)).rows).toEqual([expect.stringMatching(/^delivered \d+m record \d+$/)]);
  const [record] = zoho.find(token);
  expect(await outcome(zoho, dir, token)).toEqual({ records: 1, rows: [expect.stringContaining(`record ${record!.id}`)] });
  return record!;
}

/** Nothing the server wrote holds the client secret, the refresh token or an access token Zoho issued. */
function keptSecret(server: Served, zoho: FakeZohoCrm) {
  const said = server.stdout() + server.stderr();
  for (const secret of [zoho.clientSecret, zoho.refreshToken, ...zoho.issued()]) expect(said, "a secret in the log").not.toContain(secret);
  events(server.stdout()); // every line is JSON
}

test("a calculator send and a contact message each become one Zoho CRM Lead with every field, and the store keeps which record", async ({ page }) => {
  const zoho = await startFakeZohoCrm();
  const dir = dataDir();
  const server = serve(
    opsPort(110),
    zohoEnv(zoho, dir, { ZOHO_FIELD_MAP: '{"service":"Service_Wanted","timeframe":"Timeframe","complexity":"Complexity","estimate":"Estimate"}' }),
  );
  try {
    await server.listening;
    const details = { name: "Thandi Nkosi", companyName: "Gauteng Freight zc-calc", email: "thandi@freight.example", phone: "+27 11 555 0100" };
    await atStep5(page, dispatchApp, { site: server.url });
    const calc = calculator(page);
    await calc.getByLabel("Your name (optional)").fill(details.name);
    await calc.getByLabel("Company name").fill(details.companyName);
    await calc.getByLabel("Email").fill(details.email);
    await calc.getByLabel("Phone").fill(details.phone);
    await calc.getByRole("button", { name: "Send My Request" }).click();
    await expect(progress(page)).toHaveText("Step 1 of 5");
    expect((await postContact(server.url, "Please call me about Zoho (zc-contact).", { name: "Ada Lovelace" })).status).toBe(303);

    const calculatorRecord = await deliveredOnce(zoho, server, dir, "zc-calc");
    // The message as the form services get it, worked out by the site's own rule for this request.
    const expected = calculatorLead({ service: "softwareDev", timeframe: "urgent", complexity: "complex", description: dispatchApp.description, ...details });
    const reference = calculatorRecord.fields.Website_Reference as string;
    expect(calculatorRecord.fields).toEqual({
      Last_Name: "Thandi Nkosi",
      Company: "Gauteng Freight zc-calc",
      Email: "thandi@freight.example",
      Phone: "+27 11 555 0100",
      // A visit that came to the page directly: the source's line before the reference (decision 0042).
      Description: `${expected.text}\n\nCame directly\n\nReference: ${reference}`,
      Lead_Source: "Website",
      Service_Wanted: "Software Development",
      Timeframe: "Urgent (1-2 weeks)",
      Complexity: "Complex",
      Estimate: expected.fields!.estimate,
      Website_Reference: reference,
    });
    const contactRecord = await deliveredOnce(zoho, server, dir, "zc-contact");
    expect(contactRecord.fields).toEqual({
      Last_Name: "Ada Lovelace",
      Company: "Ada Lovelace",
      Email: "ada@example.com",
      Description: expect.stringMatching(
        /^Name: Ada Lovelace\nEmail: ada@example\.com\nService: .+\nMessage: Please call me about Zoho \(zc-contact\)\.\n\nCame from: not known \(no JavaScript, so only a campaign link's tags are seen\)\n\nReference: \d{8}-\w{8}$/,
      ),
      Lead_Source: "Website",
      Service_Wanted: expect.any(String),
      Website_Reference: expect.stringMatching(/^\d{8}-\w{8}$/),
    });
    expect(zoho.records()).toHaveLength(2);
    expect(zoho.tokenRequests()).toBe(1);
    keptSecret(server, zoho);
  } finally {
    server.kill();
    await zoho.close();
  }
});

test("an answer lost after Zoho took the lead, and an access token Zoho calls expired: each ends with exactly one record and the lead delivered", async () => {
  const zoho = await startFakeZohoCrm();
  const dir = dataDir();
  const server = serve(opsPort(111), zohoEnv(zoho, dir, { FORM_TIMEOUT_MS: "2000" }));
  try {
    await server.listening;
    zoho.setMode("storeThenClose", 1);
    expect((await postContact(server.url, "Lost answer (zc-lost).", { localAddress: "127.0.21.1" })).status).toBe(303);
    const lost = await deliveredOnce(zoho, server, dir, "zc-lost");
    expect(lost.updates, "the second send updated the record the first one made").toBe(1);
    expect(events(server.stdout()).filter((e) => e.event === "lead_delivery_failed")).toEqual([expect.objectContaining({ reason: "network" })]);

    zoho.expireTokens();
    expect((await postContact(server.url, "Expired token (zc-expired).", { localAddress: "127.0.21.2" })).status).toBe(303);
    const expired = await deliveredOnce(zoho, server, dir, "zc-expired");
    expect([expired.updates, zoho.tokenRequests()], "one refresh, then the same attempt went through").toEqual([0, 2]);
    expect(
      events(server.stdout()).filter((e) => e.event === "lead_delivery_failed"),
      "no failed attempt for the expired token",
    ).toHaveLength(1);
    keptSecret(server, zoho);
  } finally {
    server.kill();
    await zoho.close();
  }
});

test("a kill -9 of the site while Zoho has the lead but has not answered: after the restart, exactly one record and the lead delivered", async () => {
  const zoho = await startFakeZohoCrm();
  const dir = dataDir();
  const env = zohoEnv(zoho, dir, { FORM_TIMEOUT_MS: "8000" });
  zoho.setMode("storeThenHang", 1);
  const first = serve(opsPort(112), env);
  let second: Served | undefined;
  try {
    await first.listening;
    expect((await postContact(first.url, "Killed mid-send (zc-killed).")).status).toBe(303);
    await expect.poll(() => zoho.find("zc-killed").length, { message: "Zoho stored it" }).toBe(1);
    first.child.kill("SIGKILL");
    await first.exited;
    expect(
      events(first.stdout()).filter((e) => e.event === "lead_delivered"),
      "no answer reached the site",
    ).toEqual([]);

    second = serve(opsPort(112), env);
    await second.listening;
    const record = await deliveredOnce(zoho, second, dir, "zc-killed");
    expect(record.updates).toBe(1);
    keptSecret(first, zoho);
    keptSecret(second, zoho);
  } finally {
    first.kill();
    second?.kill();
    await zoho.close();
  }
});

test("a refresh token Zoho refuses parks the lead with Zoho's word and alerts, once, never looping; no secret in any line", async () => {
  const zoho = await startFakeZohoCrm();
  const dir = dataDir();
  const metrics = async () => (await fetch(`http://127.0.0.1:${opsPort(114)}/metrics`)).text();
  const revoked = "1000.revoked-refresh-token-9d1e";
  const server = serve(opsPort(113), zohoEnv(zoho, dir, { ZOHO_REFRESH_TOKEN: revoked, METRICS_PORT: String(opsPort(114)) }));
  try {
    await server.listening;
    expect((await postContact(server.url, "Refused token (zc-refused).")).status).toBe(303);
    await expect.poll(async () => (await list(dir)).map(statusAgeReason)).toEqual(["parked 0m zoho:invalid_code"]);
    // What the LeadParked alert reads (prometheus-rules.yaml: max(leads_parked_now) > 0).
    await expect.poll(metrics).toMatch(/^leads_parked_now\{[^}]*\} 1$/m);
    expect(events(server.stdout()).filter((e) => e.event === "lead_parked")).toEqual([
      expect.objectContaining({ level: "error", reason: "zoho:invalid_code", provider: "zoho-crm" }),
    ]);
    // Never looping: a refusal taken for a passing failure would ask Zoho again at the lead's first
    // retry, 1-2 s after it (schedule.ts); 3 s hold that retry and the loop's next look (every 2 s).
    await sleep(3_000);
    expect([zoho.tokenRequests(), zoho.upserts(), zoho.records().length], "asked once, never sent, no record").toEqual([1, 0, 0]);
    const said = server.stdout() + server.stderr();
    for (const secret of [zoho.clientSecret, revoked]) expect(said).not.toContain(secret);
  } finally {
    server.kill();
    await zoho.close();
  }
});
