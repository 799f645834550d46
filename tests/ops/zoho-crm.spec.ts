/**
 * FORM_PROVIDER=zoho-crm against a fake Zoho CRM (tests/support/fake-zoho-crm.ts), the built server
 * a real process: each lead one CRM Lead with every field and its source in the mapped fields,
 * one whatever happens to the process or the token (decision 0035). opsPort 110-113.
 */
import { expect, test } from "@playwright/test";
import { calculatorLead } from "../../app/calculator/lead.server";
import { zarRate } from "../../app/calculator/pricing";
import { type FakeZohoCrm, startFakeZohoCrm, zohoEnv } from "../support/fake-zoho-crm";
import { freePort } from "../support/ports";
import { dataDir, events, listed, postContact, type Served, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";
import { atStep5, calculator, dispatchApp, progress } from "../support/wizard";

const { site, undo } = startedByEachTest();

/** A fake Zoho CRM, closed after the test, and a data folder for the site that delivers to it. */
async function fakeZoho(options?: Parameters<typeof startFakeZohoCrm>[0]) {
  const zoho = await startFakeZohoCrm(options);
  undo(() => zoho.close());
  return { zoho, dir: dataDir() };
}

/** `leads -- list`: each row's reference, and its status, age and reason. */
const list = async (dir: string) => (await listed(dir)).map((row) => [row[0], [row[2], row[3], row[5]].join(" ")] as const);

/** The one record of the lead marked `token`, once the server's log says it delivered it. */
async function delivered(zoho: FakeZohoCrm, server: Served, token: string) {
  const logged = () => events(server.stdout()).some((e) => e.event === "lead_delivered" && zoho.find(token).some((r) => r.fields.Website_Reference === e.id));
  await expect.poll(logged, { timeout: 30_000, message: `${token} delivered, in the server's log` }).toBe(true);
  expect(zoho.find(token), token).toHaveLength(1);
  return zoho.find(token)[0]!;
}

/** The store lists each of `records` as delivered as that record. */
async function listedAs(dir: string, records: { id: string; fields: Record<string, unknown> }[]) {
  const rows = new Map(await list(dir));
  expect(records.map((r) => rows.get(r.fields.Website_Reference as string))).toEqual(
    records.map((r) => expect.stringMatching(`^delivered \\d+m record ${r.id}$`)),
  );
}

/** Nothing the server wrote holds the client secret, the refresh token or an access token Zoho issued; every line is JSON. */
function keptSecret(server: Served, zoho: FakeZohoCrm, ...others: string[]) {
  const said = server.stdout() + server.stderr();
  for (const secret of [zoho.clientSecret, zoho.refreshToken, ...zoho.issued(), ...others]) expect(said, "a secret in the log").not.toContain(secret);
  events(server.stdout());
}

test("a calculator send and a contact message each become one Lead, every field and the source mapped; the store keeps which record", async ({ page }) => {
  const { zoho, dir } = await fakeZoho();
  const map =
    '{"service":"Service_Wanted","timeframe":"Timeframe","complexity":"Complexity","estimate":"Estimate","source":"Came_From","source_kind":"Source_Kind"}';
  // With a rand rate: the estimate in rand too, in the Description (the lead's text) and the mapped field.
  const rate = { USD_ZAR_RATE: "18.40", USD_ZAR_RATE_DATE: "2026-11-30" };
  const server = site(opsPort(110), zohoEnv(zoho, dir, { ZOHO_FIELD_MAP: map, ZOHO_LEAD_SOURCE_MAP: '{"direct":"Direct"}', ...rate }));
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

  const calculatorRecord = await delivered(zoho, server, "zc-calc");
  // The message as the form services get it, worked out by the site's own rule for this request.
  const chosen = { service: "softwareDev", timeframe: "urgent", complexity: "complex", description: dispatchApp.description, ...details } as const;
  const expected = calculatorLead(chosen, zarRate(18.4, "2026-11-30"));
  const reference = calculatorRecord.fields.Website_Reference as string;
  expect(calculatorRecord.fields.Description).toContain("\nEstimated cost: USD 5,625 (about R 103,500 at R 18.40 to the dollar, 30 Nov 2026)\n");
  expect(calculatorRecord.fields).toEqual({
    Last_Name: "Thandi Nkosi",
    Company: "Gauteng Freight zc-calc",
    Email: "thandi@freight.example",
    Phone: "+27 11 555 0100",
    // A visit that came to the page directly: the source's line before the reference (decision 0042).
    Description: `${expected.text}\n\nCame directly\n\nReference: ${reference}`,
    Lead_Source: "Direct",
    Came_From: "Came directly",
    Source_Kind: "direct",
    Service_Wanted: "Software Development",
    Timeframe: "Urgent (1-2 weeks)",
    Complexity: "Complex",
    Estimate: expected.fields!.estimate,
    Website_Reference: reference,
  });
  const contactRecord = await delivered(zoho, server, "zc-contact");
  expect(contactRecord.fields).toEqual({
    Last_Name: "Ada Lovelace",
    Company: "Ada Lovelace",
    Email: "ada@example.com",
    Description: expect.stringMatching(
      /^Name: Ada Lovelace\nEmail: ada@example\.com\nService: .+\nMessage: Please call me about Zoho \(zc-contact\)\.\n\nCame from: not known \(no JavaScript, so only a campaign link's tags are seen\)\n\nReference: \d{8}-\w{8}$/,
    ),
    Lead_Source: "Website",
    Came_From: "not known (no JavaScript, so only a campaign link's tags are seen)",
    Source_Kind: "unknown",
    Service_Wanted: expect.any(String),
    Website_Reference: expect.stringMatching(/^\d{8}-\w{8}$/),
  });
  expect([zoho.records().length, zoho.tokenRequests()]).toEqual([2, 1]);
  await listedAs(dir, [calculatorRecord, contactRecord]);
  keptSecret(server, zoho);
});

test("one record, delivered, when the site is killed -9 while Zoho had the lead but had not answered: the next site's send updates it", async () => {
  const { zoho, dir } = await fakeZoho();
  // 4 s hold a token refresh and the upsert: killed while it waits. (An answer lost, an expired token: zoho-crm.test.ts.)
  const env = zohoEnv(zoho, dir, { FORM_TIMEOUT_MS: "4000" });
  zoho.setMode("storeThenHang", 1, "zc-killed");
  const first = site(opsPort(112), env);
  await first.listening;
  expect((await postContact(first.url, "Killed mid-send (zc-killed).")).status).toBe(303);
  await expect.poll(() => zoho.find("zc-killed").length, { message: "Zoho stored it" }).toBe(1);
  first.child.kill("SIGKILL");
  await first.exited;
  expect(first.stdout(), "no answer reached the site").not.toMatch(/"event":"lead_(delivered|delivery_failed)"/);

  const second = site(opsPort(112), env);
  await second.listening;
  const killed = await delivered(zoho, second, "zc-killed");
  expect(killed.updates, "the send again after the restart updated the record").toBe(1);
  expect(second.stdout(), "no failed attempt for the killed site's lead").not.toContain('"event":"lead_delivery_failed"');
  await listedAs(dir, [killed]);
  keptSecret(first, zoho);
  keptSecret(second, zoho);
});

test("a refresh token Zoho refuses parks the lead with Zoho's word (metric, one error line), /healthz 200; asked once; nothing secret or typed logged", async () => {
  const { zoho, dir } = await fakeZoho();
  const revoked = "1000.revoked-refresh-token-9d1e";
  const metricsPort = await freePort();
  const server = site(opsPort(113), zohoEnv(zoho, dir, { ZOHO_REFRESH_TOKEN: revoked, METRICS_PORT: String(metricsPort) }));
  const metrics = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  await server.listening;
  expect(await metrics()).toMatch(/^leads_parked_now\{[^}]*\} 0$/m);
  expect((await postContact(server.url, "Our confidential launch (zc-refused).")).status).toBe(303);
  await expect
    .poll(() => events(server.stdout()).filter((e) => e.level === "error"))
    .toEqual([expect.objectContaining({ event: "lead_parked", reason: "zoho:invalid_code", provider: "zoho-crm" })]);
  const parkedAt = Date.now();
  // What the LeadParked alert reads (prometheus-rules.yaml: max(leads_parked_now) > 0).
  await expect.poll(metrics).toMatch(/^leads_parked_now\{[^}]*\} 1$/m);
  expect(await metrics()).toMatch(/^leads_pending\{[^}]*\} 0$/m);
  const health = await fetch(`${server.url}/healthz`);
  expect([health.status, health.headers.get("cache-control"), await health.json()]).toEqual([200, "no-store", { status: "ok" }]);
  expect((await list(dir)).map(([, said]) => said)).toEqual(["parked 0m zoho:invalid_code"]);
  // A refusal taken for a passing failure would ask again at the first retry (1-2 s) or the next look (2 s).
  await sleep(Math.max(0, 3_000 - (Date.now() - parkedAt)));
  expect([zoho.tokenRequests(), zoho.upserts(), zoho.records().length], "asked once, never sent, no record").toEqual([1, 0, 0]);
  keptSecret(server, zoho, revoked);
  expect(server.stdout()).not.toMatch(/confidential launch|Ada Lovelace|ada@example\.com/);
});
