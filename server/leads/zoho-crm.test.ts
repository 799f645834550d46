import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { calculatorLead } from "~/calculator/lead.server";
import type { CalculatorRequest } from "~/calculator/rules";
import { contactLead } from "~/contact/lead.server";
import { startFakeZohoCrm, type FakeZohoCrm } from "../../tests/support/fake-zoho-crm";
import type { StoredLead } from "./types";
import { createZohoTransport, cut, leadRecord, leadSourceOf, type ZohoSettings } from "./zoho-crm";

let zoho: FakeZohoCrm | undefined;
afterEach(async () => void (await zoho?.close()));

/** The operator's settings for `at` (a fake's URL, or a record's test where none is asked). */
const settings = (at: { url: string; clientSecret?: string; refreshToken?: string; clientId?: string }, extra: Partial<ZohoSettings> = {}): ZohoSettings => ({
  ...{ clientId: at.clientId ?? "1000.CLIENT", clientSecret: at.clientSecret ?? "secret", refreshToken: at.refreshToken ?? "1000.refresh" },
  ...{ accountsUrl: at.url, referenceField: "Website_Reference", leadSource: "Website", fieldMap: {}, ...extra },
});
const noFake = { url: "http://x" };
const stored = (lead: Omit<StoredLead, "id" | "acceptedAt">, id = "20261126-ABCDEFGH"): StoredLead => ({ ...lead, id, acceptedAt: Date.now() });
const contact = (id: string, message = "Please call back.") =>
  stored(contactLead({ name: "Ada Lovelace", email: "ada@example.com", service: "seo", message }), id);
const calculator = (request: Partial<CalculatorRequest>) =>
  stored(
    calculatorLead({
      ...{ service: "zoho", timeframe: "urgent", complexity: "complex", description: "Move our sales\nfrom spreadsheets", name: "Thandi Nkosi" },
      ...{ companyName: "Gauteng Freight", email: "thandi@freight.example", phone: "+27 11 555 0100", ...request },
    }),
  );
const spring = { kind: "campaign", source: "newsletter", medium: "email", campaign: "spring" } as const;

describe("the lead as a Zoho CRM Lead", () => {
  it("without a person's name the company is the Last_Name; a lead stored before fields existed still makes a whole record", () => {
    expect(leadRecord(calculator({ name: "", companyName: "Acme" }), settings(noFake))).toMatchObject({ Last_Name: "Acme", Company: "Acme" });
    const old = stored({ kind: "contact", subject: "s", fromName: "Ada", replyTo: "ada@example.com", text: "Name: Ada" });
    expect(leadRecord(old, settings(noFake))).toMatchObject({ Last_Name: "Ada", Company: "Ada", Email: "ada@example.com" });
  });
});

describe("every value within Zoho's published limits (decision 0042)", () => {
  const longest = () =>
    stored({
      ...calculator({
        description: "Move our sales",
        name: "N".repeat(100),
        companyName: `Gauteng Freight and Logistics ${"C".repeat(90)}`,
        email: `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(53)}.example`,
        phone: "+27 11 555 0100 ext 1234 56789",
      }),
      source: spring,
    });

  it("a company of 120 characters is cut to Zoho's 100, a name of 100 to Last_Name's 80, each ending '…'; an email over 100 is left out; the Description keeps them whole and says so", () => {
    const lead = longest();
    expect([lead.fields!.company!.length, lead.replyTo.length]).toEqual([120, 254]);
    const record = leadRecord(lead, settings(noFake));
    expect(record).toMatchObject({
      Company: `${lead.fields!.company!.slice(0, 99)}…`,
      Last_Name: `${"N".repeat(79)}…`,
      Phone: "+27 11 555 0100 ext 1234 56789",
    });
    expect(record.Email).toBeUndefined();
    expect(record.Description).toContain(`Company: ${lead.fields!.company}\n`);
    expect(record.Description).toContain(`Email: ${lead.replyTo}\n`);
    expect(record.Description).toContain(
      "Zoho CRM's fields hold less than was sent: Last_Name cut to 80 characters; Company cut to 100 characters; " +
        "Email left out: the address has 254 characters, Zoho's Email field holds 100. The whole values are in this Description.",
    );
    expect(record.Description!.endsWith(`\n\nCame from: newsletter, email, spring\n\nReference: ${lead.id}`)).toBe(true);
  });

  it("a cut never splits a character: an emoji or an accented letter stays whole or goes", () => {
    const cuts = ["short", "abcdefghij", "abcdefghijk", "Café 👩🏽‍💻 team", "e\u0301e\u0301e\u0301e\u0301e\u0301e\u0301", "word and more"].map((text) =>
      cut(text, 10),
    );
    expect(cuts).toEqual(["short", "abcdefghij", "abcdefghi…", "Café…", "e\u0301e\u0301e\u0301e\u0301…", "word and…"]);
  });

  it("the source's parts go to the fields the map names, each within its field; a lead stored before sources has none", () => {
    const host = `${"sub.".repeat(60)}example.co.za`;
    const [source, source_kind, utm_source, utm_medium, utm_campaign, referrer] = [
      "Came_From",
      "Source_Kind",
      "UTM_Source",
      "UTM_Medium",
      "UTM_Campaign",
      "Referrer",
    ];
    const fields = { source, source_kind, utm_source, utm_medium, utm_campaign, referrer };
    const fieldMap = {
      ...Object.fromEntries(Object.entries(fields).map(([part, field]) => [part, { field, max: 255 }])),
      message: { field: "Project", max: 2000 },
    };
    const base = settings(noFake, { fieldMap });
    expect(leadRecord({ ...longest(), fields: { ...longest().fields!, message: "m".repeat(2500) } }, base)).toMatchObject({
      Came_From: "newsletter, email, spring",
      Source_Kind: "campaign",
      UTM_Source: "newsletter",
      UTM_Medium: "email",
      UTM_Campaign: "spring",
      Project: `${"m".repeat(1999)}…`,
    });
    // utm_content and utm_term, where the operator maps them.
    const post = {
      ...contact("L4"),
      source: { kind: "campaign", source: "linkedin", medium: "social", campaign: "spring", content: "video", term: "banner" },
    } as const;
    const mapped = settings(noFake, { fieldMap: { utm_content: { field: "UTM_Content", max: 255 }, utm_term: { field: "UTM_Term", max: 255 } } });
    expect(leadRecord(post, mapped)).toMatchObject({ UTM_Content: "video", UTM_Term: "banner" });
    const site = leadRecord({ ...contact("L2"), source: { kind: "site", host } }, base);
    expect(site).toMatchObject({ Source_Kind: "site", Referrer: host, Came_From: `${`a link on ${host}`.slice(0, 254)}…` });
    expect(site.UTM_Source).toBeUndefined();
    expect(site.Description).toContain("Came_From cut to 255 characters");
    const old = leadRecord(contact("L3"), base);
    expect(Object.keys(old).filter((field) => field in fieldMap || Object.values(fieldMap).some((t) => t.field === field))).toEqual(["Project"]);
    expect(old.Description).toBe(`${contact("L3").text}\n\nReference: L3`);
  });

  it("Lead_Source is ZOHO_LEAD_SOURCE unless the operator names a picklist value for the source: by its key, a campaign's first parts, then its kind", () => {
    const map = { "search:google": "Google", newsletter: "Newsletter", "newsletter/email/spring": "Spring offer", campaign: "Campaign", link: "Referral" };
    const sources: [Parameters<typeof leadSourceOf>[0], string][] = [
      [{ kind: "search", name: "google" }, "Google"],
      [{ kind: "search", name: "bing" }, "Website"],
      [spring, "Spring offer"],
      [{ ...spring, campaign: "autumn" }, "Newsletter"],
      // A content or term narrows the campaign: the campaign's value still applies.
      [{ ...spring, content: "video", term: "banner" }, "Spring offer"],
      [{ kind: "campaign", source: "google", medium: "cpc" }, "Campaign"],
      [{ kind: "link" }, "Referral"],
      [{ kind: "other" }, "Website"],
      [undefined, "Website"],
    ];
    for (const [source, named] of sources) expect(leadSourceOf(source, { leadSource: "Website", leadSourceMap: map }), JSON.stringify(source)).toBe(named);
    expect(leadSourceOf({ kind: "link" }, { leadSource: "Website" })).toBe("Website");
  });
});

describe("delivery to Zoho CRM", () => {
  it("one token refresh however many deliveries wait for it, and one more when Zoho calls the token expired", async () => {
    zoho = await startFakeZohoCrm();
    const transport = createZohoTransport(settings(zoho), 2_000);
    const send = async (ids: string[]) => (await Promise.all(ids.map((id) => transport.deliver(contact(id, `Message ${id}`))))).map((o) => o.ok);
    expect(await send(["A", "B", "C", "D", "E"])).toEqual([true, true, true, true, true]);
    expect(zoho.tokenRequests()).toBe(1);
    zoho.expireTokens();
    expect(await send(["F", "G", "H"])).toEqual([true, true, true]);
    expect([zoho.tokenRequests(), zoho.records().length]).toEqual([2, 8]);
  });

  it("a token is renewed shortly before it expires, not after Zoho refuses it", async () => {
    zoho = await startFakeZohoCrm({ expiresIn: 3600 });
    let clock = Date.now();
    const transport = createZohoTransport(settings(zoho), 2_000, () => clock);
    await transport.deliver(contact("A"));
    clock += 54 * 60_000;
    await transport.deliver(contact("B", "b"));
    expect(zoho.tokenRequests()).toBe(1);
    clock += 2 * 60_000;
    await transport.deliver(contact("C", "c"));
    expect([zoho.tokenRequests(), zoho.upserts()]).toEqual([2, 3]);
  });

  it("429 and 5xx are retried (a lost answer, turned into an update by the next attempt: zoho-crm.spec)", async () => {
    zoho = await startFakeZohoCrm();
    const transport = createZohoTransport(settings(zoho), 2_000);
    zoho.setMode("tooMany", 1);
    expect(await transport.deliver(contact("A"))).toEqual({ ok: false, retry: true, reason: "zoho:TOO_MANY_REQUESTS", status: 429 });
    zoho.setMode("fail500", 1);
    expect(await transport.deliver(contact("A"))).toMatchObject({ ok: false, retry: true, status: 500 });
  });

  it("a record deleted in the CRM while its lead is retried is made again", async () => {
    zoho = await startFakeZohoCrm();
    const transport = createZohoTransport(settings(zoho), 2_000);
    const first = await transport.deliver(contact("A"));
    zoho.records().splice(0);
    const again = await transport.deliver(contact("A"));
    expect(again).toMatchObject({ ok: true, record: zoho.records()[0]!.id });
    expect(again).not.toEqual(first);
    expect(zoho.records().map((r) => r.fields.Website_Reference)).toEqual(["A"]);
  });

  it("a refused refresh token, data Zoho refuses, a mandatory field missing, or a duplicate on another unique field: refused for good, with Zoho's word", async () => {
    zoho = await startFakeZohoCrm({ unique: ["Email"], leadSources: ["Website"], fields: { Project: 2000 } });
    const refused = (reason: string) => ({ ok: false, retry: false, reason: `zoho:${reason}`, status: reason.startsWith("invalid") ? 200 : 400 });
    const transport = (extra: Partial<ZohoSettings>) => createZohoTransport(settings(zoho!, extra), 2_000);
    expect(await transport({ refreshToken: "1000.revoked" }).deliver(contact("A"))).toEqual(refused("invalid_code"));
    expect(await transport({ clientSecret: "wrong" }).deliver(contact("A"))).toEqual(refused("invalid_client"));
    const nameless = stored(contactLead({ name: "N".repeat(100), email: "n@example.com", service: "seo", message: "m" }), "B");
    expect(await transport({}).deliver({ ...nameless, fields: { ...nameless.fields!, name: undefined }, fromName: "" })).toEqual(
      refused("MANDATORY_NOT_FOUND"),
    );
    // As Zoho does: a Lead_Source not among a restricted picklist's options, a value over its field's limit.
    expect(await transport({ leadSource: "Newsletter" }).deliver(contact("A"))).toEqual(refused("INVALID_DATA"));
    const overLimit = { ...contact("C"), fields: { ...contact("C").fields!, message: "m".repeat(2001) } };
    expect(await transport({ fieldMap: { message: { field: "Project", max: 2001 } } }).deliver(overLimit)).toEqual(refused("INVALID_DATA"));
    // An email over Email's 100 characters is left out, so taken; another lead with that email is a duplicate.
    const long = { ...contact("D"), replyTo: `${"a".repeat(96)}@x.co`, text: "t" };
    expect(await transport({}).deliver(long)).toMatchObject({ ok: true });
    expect(zoho.records()[0]!.fields.Email).toBeUndefined();
    expect(await transport({}).deliver(contact("E"))).toMatchObject({ ok: true });
    expect(await transport({}).deliver(contact("F", "Another message, same address"))).toEqual(refused("DUPLICATE_DATA"));
  });

  it("one attempt, a token refresh and a second round included, ends within FORM_TIMEOUT_MS: its claim on the lead outlasts it", async () => {
    zoho = await startFakeZohoCrm();
    const transport = createZohoTransport(settings(zoho), 800);
    await transport.deliver(contact("A"));
    // Three requests of 300 ms each (the upsert, refused; the token; the upsert again): over the
    // 800 ms together, each within it. A timeout, not a success after 900 ms, is one deadline for
    // the whole attempt; and it ends within the attempt's claim (FORM_TIMEOUT_MS + 5 s,
    // lead-inbox.ts), however long a loaded machine takes to get round to it.
    zoho.expireTokens();
    zoho.setDelay(300);
    const started = performance.now();
    expect(await transport.deliver(contact("B", "b"))).toEqual({ ok: false, retry: true, reason: "timeout" });
    expect(performance.now() - started, "ms, within its claim").toBeLessThan(800 + 5_000);
  });

  it("DUPLICATE_DATA on the reference field itself (two sends of one lead racing) is tried again, not parked", async () => {
    // Zoho's answer when two upserts of one reference meet: the second finds the first's record taken.
    const duplicate = {
      code: "DUPLICATE_DATA",
      details: { api_name: "Website_Reference", json_path: "$.data[0].Website_Reference" },
      message: "duplicate data",
      status: "error",
    };
    const server = createServer((req, res) => {
      const token = req.url === "/oauth/v2/token";
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      res.writeHead(token ? 200 : 400, { "Content-Type": "application/json" });
      res.end(JSON.stringify(token ? { access_token: "1000.t", api_domain: url, token_type: "Bearer", expires_in: 3600 } : { data: [duplicate] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const transport = createZohoTransport(settings({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }), 2_000);
      expect(await transport.deliver(contact("A"))).toEqual({ ok: false, retry: true, reason: "zoho:DUPLICATE_DATA", status: 400 });
    } finally {
      server.close();
    }
  });
});
