import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { site } from "~/content/site";
import { describeConfig, parseConfig, privacyFacts, proxyExpectedButUntrusted } from "./config";

const parse = (env: Record<string, string>) => parseConfig(env, "1.2.3");
const problem = (env: Record<string, string>) => {
  try {
    parse(env);
  } catch (error) {
    return (error as Error).message;
  }
  return "(no configuration error)";
};

/** Zoho CRM's settings, each secret a value of its own to look for where it must not be. */
const zoho = {
  FORM_PROVIDER: "zoho-crm",
  ZOHO_CLIENT_ID: "1000.CLIENTID",
  ZOHO_CLIENT_SECRET: "zoho-client-secret-value",
  ZOHO_REFRESH_TOKEN: "1000.zoho-refresh-token-value",
  ZOHO_REFERENCE_FIELD: "Website_Reference",
};

describe("parseConfig", () => {
  it("works out of the box: port 3000, no proxy, no form service (so the outbox), data/ files", () => {
    const { delivery, ...config } = parse({});
    expect(config).toMatchObject({ dev: false, port: 3000, version: "1.2.3", trustProxy: false, dataDir: "data", leadsDb: "data/leads.db" });
    expect(config).toMatchObject({ retentionDays: 30, leadsPerHour: 60 });
    const outbox = { provider: "outbox", endpoint: "https://api.web3forms.com/submit", accessKey: undefined, inbox: site.email };
    expect(delivery).toEqual({ ...outbox, outboxFile: "data/outbox.jsonl", timeoutMs: 10_000 });
  });

  it("reads every variable, trimmed; blank counts as unset; retention 0 erases at delivery; DATA_DIR moves everything the server writes, OUTBOX_FILE the outbox alone; CONTAINER_NAME, unset, is the host name; BOOKING_URL is kept as given", () => {
    expect(parse({ LEAD_RETENTION_DAYS: "0", LEADS_PER_HOUR: "5" })).toMatchObject({ retentionDays: 0, leadsPerHour: 5 });
    const config = parse({
      PORT: " 8080 ",
      FORM_PROVIDER: "formspree",
      FORM_ENDPOINT: "https://formspree.io/f/abc",
      FORM_ACCESS_KEY: "  ", // blank: unset, and Formspree needs none
      FORM_INBOX: "sales@agency.example",
      FORM_TIMEOUT_MS: "5000",
      DATABASE_URL: "postgres://agency:pw@db:5432/agency",
      APP_VERSION: "2026.11",
      METRICS_PORT: "9464",
    });
    expect(config).toMatchObject({ port: 8080, databaseUrl: "postgres://agency:pw@db:5432/agency", version: "2026.11", metricsPort: 9464 });
    expect(config.delivery).toMatchObject({ provider: "formspree", accessKey: undefined, inbox: "sales@agency.example", timeoutMs: 5000 });
    expect(parse({ DATA_DIR: "/srv/site" })).toMatchObject({ leadsDb: "/srv/site/leads.db", delivery: { outboxFile: "/srv/site/outbox.jsonl" } });
    expect(parse({ DATA_DIR: "/srv/site", OUTBOX_FILE: "/tmp/o.jsonl" }).delivery.outboxFile).toBe("/tmp/o.jsonl");
    expect(parse({}).container).toBe(hostname());
    expect(parse({ CONTAINER_NAME: " site-1 " }).container).toBe("site-1");
    expect(parse({}).bookingUrl).toBeUndefined();
    expect(parse({ BOOKING_URL: " https://cal.com/kopano/intro?duration=30 " }).bookingUrl).toBe("https://cal.com/kopano/intro?duration=30");
    expect(parse({ BOOKING_URL: "https://calendly.com/kopano/30min" }).bookingUrl).toBe("https://calendly.com/kopano/30min");
  });

  it("USD_ZAR_RATE and USD_ZAR_RATE_DATE: rand to the dollar and its day; unset, none", () => {
    expect(parse({ USD_ZAR_RATE: " 18.4 ", USD_ZAR_RATE_DATE: "2026-11-30" }).zar).toEqual({ rate: 18.4, note: "at R 18.40 to the dollar, 30 Nov 2026" });
    expect(parse({}).zar).toBeUndefined();
  });

  it("CAMPAIGNS and REFERRER_SITES name the sources the agency wants to see: tidied, and refused when they are not plain names or hosts", () => {
    expect(parse({}).sources).toEqual({ names: new Set(), sites: [], ownHosts: [] });
    const { sources } = parse({ CAMPAIGNS: " Spring , spring_offer,, Partner-X ", REFERRER_SITES: "www.Example.co.za, blog.agency.example" });
    expect(sources).toMatchObject({ names: new Set(["spring", "spring-offer", "partner-x"]), sites: ["example.co.za", "blog.agency.example"] });
    for (const bad of ["jane@x.co", "direct", "a/b", "x".repeat(41)])
      expect(() => parse({ CAMPAIGNS: bad })).toThrow(/^Invalid configuration: CAMPAIGNS must be/);
    for (const bad of ["https://example.co.za/blog", "localhost", "a b.com"])
      expect(() => parse({ REFERRER_SITES: bad })).toThrow(/^Invalid configuration: REFERRER_SITES must be/);
    // By the rule `leads -- campaigns add` keeps (source.test.ts): why, never which (a value may be personal).
    expect(() => parse({ CAMPAIGNS: "spring, 0825551234" })).toThrow(
      /^Invalid configuration: CAMPAIGNS must be .*: one has seven or more digits in a row[^0-9]*$/,
    );
    expect(() => parse({ CAMPAIGNS: "spring offer" })).toThrow(/: one has a space/);
  });

  it("SITE_ORIGIN names the origins the site is served at: tidied, and refused when any is more or less than scheme://host[:port]", () => {
    expect(parse({}).siteOrigins).toEqual([]);
    const config = parse({ SITE_ORIGIN: " https://www.Example.co.za ,http://site.test:8080,, http://[::1]:3000" });
    expect(config.siteOrigins).toEqual(["https://www.example.co.za", "http://site.test:8080", "http://[::1]:3000"]);
    // Their hosts are this site's too where a visit's source is worked out (a referrer there is no source).
    expect(config.sources.ownHosts).toEqual(["www.example.co.za", "site.test:8080", "[::1]:3000"]);
    const www = "www.example.co.za";
    for (const bad of [
      www,
      `https://${www}/`,
      `https://${www}/contact`,
      `https://${www}:443`,
      `https://user@${www}`,
      `https://${www}?x`,
      `ftp://${www}`,
      "null",
      "https://ok.example, *",
    ])
      expect(() => parse({ SITE_ORIGIN: bad }), bad).toThrow(/^Invalid configuration: SITE_ORIGIN must be a comma-separated list of origins/);
  });

  it("TRUST_PROXY means what Express's trust proxy does", () => {
    const read = { 0: false, false: false, 1: 1, 2: 2, loopback: ["loopback"], "10.0.0.0/8, 192.168.1.1": ["10.0.0.0/8", "192.168.1.1"] };
    for (const [value, expected] of Object.entries(read)) expect(parse({ TRUST_PROXY: value }).trustProxy, value).toEqual(expected);
  });

  it.each([
    [{ PORT: "http" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ METRICS_PORT: "metrics" }, "METRICS_PORT must be a port number"],
    [{ FORM_ENDPOINT: "not-a-url" }, "FORM_ENDPOINT must be an http(s) URL"],
    [{ FORM_ENDPOINT: "ftp://files.example/x" }, "FORM_ENDPOINT must be an http(s) URL"],
    [{ FORM_PROVIDER: "carrier-pigeon" }, "FORM_PROVIDER must be one of web3forms, formspree, webhook"],
    [{ FORM_PROVIDER: "webhook", FORM_ACCESS_KEY: "sk-secret" }, "FORM_ENDPOINT must be set when FORM_PROVIDER is webhook"],
    // A provider set explicitly delivers as set, or the start stops: never the outbox, quietly.
    [{ FORM_PROVIDER: "webhook", FORM_ENDPOINT: "https://hooks.example.net/leads" }, "FORM_ACCESS_KEY must be set when FORM_PROVIDER is webhook"],
    [{ FORM_PROVIDER: "web3forms" }, "FORM_ACCESS_KEY must be set when FORM_PROVIDER is web3forms"],
    [{ FORM_ACCESS_KEY: "sk-secret\u200b" }, "FORM_ACCESS_KEY must be printable ASCII with no spaces"],
    [{ FORM_ACCESS_KEY: "sk secret" }, "FORM_ACCESS_KEY must be printable ASCII with no spaces"],
    [{ FORM_INBOX: "sales" }, "FORM_INBOX must be an email address"],
    [{ FORM_TIMEOUT_MS: "500" }, "FORM_TIMEOUT_MS must be 1000 to 30000"],
    [{ TRUST_PROXY: "true" }, "TRUST_PROXY must be a number of proxy hops or a list of proxy addresses/CIDRs"],
    [{ TRUST_PROXY: "everyone" }, "TRUST_PROXY must be"],
    [{ DATABASE_URL: "mysql://db:3306/agency" }, "DATABASE_URL must be a postgres:// or postgresql:// URL"],
    [{ BOOKING_URL: "cal.com/kopano/intro" }, "BOOKING_URL must be an https URL"],
    [{ BOOKING_URL: "http://cal.com/kopano/intro" }, "BOOKING_URL must be an https URL"],
    [{ BOOKING_URL: "javascript:alert(1)//https://cal.com" }, "BOOKING_URL must be an https URL"],
    [{ USD_ZAR_RATE: "18.40" }, "USD_ZAR_RATE_DATE must be set too"],
    [{ USD_ZAR_RATE_DATE: "2026-11-30" }, "USD_ZAR_RATE must be set too"],
    [{ USD_ZAR_RATE: "R18.40", USD_ZAR_RATE_DATE: "2026-11-30" }, "USD_ZAR_RATE must be rand to the dollar"],
    [{ USD_ZAR_RATE: "-18", USD_ZAR_RATE_DATE: "2026-11-30" }, "USD_ZAR_RATE must be rand to the dollar"],
    [{ USD_ZAR_RATE: "0", USD_ZAR_RATE_DATE: "2026-11-30" }, "USD_ZAR_RATE must be rand to the dollar"],
    [{ USD_ZAR_RATE: "0.000001", USD_ZAR_RATE_DATE: "2026-11-30" }, "USD_ZAR_RATE must be rand to the dollar"],
    [{ USD_ZAR_RATE: "0x12", USD_ZAR_RATE_DATE: "2026-11-30" }, "USD_ZAR_RATE must be rand to the dollar"],
    [{ USD_ZAR_RATE: "1e3", USD_ZAR_RATE_DATE: "2026-11-30" }, "USD_ZAR_RATE must be rand to the dollar"],
    [{ USD_ZAR_RATE: "1e300", USD_ZAR_RATE_DATE: "2026-11-30" }, "USD_ZAR_RATE must be rand to the dollar"],
    [{ USD_ZAR_RATE: "1000", USD_ZAR_RATE_DATE: "2026-11-30" }, "USD_ZAR_RATE must be rand to the dollar"],
    [{ USD_ZAR_RATE: "18.40", USD_ZAR_RATE_DATE: "2026-02-30" }, "USD_ZAR_RATE_DATE must be a calendar date"],
    [{ USD_ZAR_RATE: "18.40", USD_ZAR_RATE_DATE: "30/11/2026" }, "USD_ZAR_RATE_DATE must be a calendar date"],
    [{ LEAD_RETENTION_DAYS: "-1" }, "LEAD_RETENTION_DAYS must be"],
    [{ LEAD_RETENTION_DAYS: "1.5" }, "LEAD_RETENTION_DAYS must be"],
    [{ LEADS_PER_HOUR: "0" }, "LEADS_PER_HOUR must be"],
    [{ CONTAINER_NAME: "x".repeat(64) }, "CONTAINER_NAME must be at most 63 characters"],
    // The alerts say `docker logs <name>`: a name a shell or docker would not take as written is refused.
    [{ CONTAINER_NAME: "site 1" }, "CONTAINER_NAME must be a container's name"],
    [{ CONTAINER_NAME: 'site-1"x' }, "CONTAINER_NAME must be a container's name"],
    [{ CONTAINER_NAME: "-site" }, "CONTAINER_NAME must be a container's name"],
    [{ FORM_PROVIDER: "zoho-crm" }, "ZOHO_CLIENT_ID must be set when FORM_PROVIDER is zoho-crm"],
    [{ ...zoho, ZOHO_REFRESH_TOKEN: " " }, "ZOHO_REFRESH_TOKEN must be set"],
    [{ ...zoho, ZOHO_REFERENCE_FIELD: "Website Reference" }, "ZOHO_REFERENCE_FIELD must be a Zoho field's API name"],
    [{ ...zoho, ZOHO_ACCOUNTS_URL: "accounts.zoho.eu" }, "ZOHO_ACCOUNTS_URL must be an http(s) URL"],
    [{ ...zoho, ZOHO_FIELD_MAP: "{service: x}" }, "ZOHO_FIELD_MAP must be a JSON object"],
    [{ ...zoho, ZOHO_FIELD_MAP: '{"budget":"Budget"}' }, "ZOHO_FIELD_MAP"],
    [{ ...zoho, ZOHO_FIELD_MAP: '{"service":"Service Wanted"}' }, "ZOHO_FIELD_MAP"],
    [{ ...zoho, ZOHO_FIELD_MAP: '{"message":{"field":"Project","max":40000}}' }, "ZOHO_FIELD_MAP"],
    [{ ...zoho, ZOHO_FIELD_MAP: '{"utm_source":"Lead_Source"}' }, "ZOHO_FIELD_MAP must not name a field the site fills itself"],
    [{ ...zoho, ZOHO_FIELD_MAP: '{"source":"Website_Reference"}' }, "ZOHO_FIELD_MAP must not name ZOHO_REFERENCE_FIELD"],
    [{ ...zoho, ZOHO_LEAD_SOURCE_MAP: '{"campaign":""}' }, "ZOHO_LEAD_SOURCE_MAP must map sources to Lead_Source values of 1 to 120 characters"],
    [{ ...zoho, ZOHO_LEAD_SOURCE_MAP: '{"a/b/c/d/e/f":"X"}' }, "ZOHO_LEAD_SOURCE_MAP must name sources by key"],
  ])("%j stops the server with one line naming the variable", (env, message) => {
    const line = problem(env as Record<string, string>);
    expect(line).toMatch(/^Invalid configuration: /);
    expect(line).toContain(message);
    expect(line).not.toContain("\n");
    // A value is never echoed (it may be a secret); a provider's name is one of a few words, not a secret, and blank is unset.
    for (const [name, value] of Object.entries(env)) if (name !== "FORM_PROVIDER" && value.trim()) expect(line).not.toContain(value);
  });
});

describe("describeConfig", () => {
  it("names where leads go (the provider, the inbox it mails, the outbox file, the timeout, the store), never a key, a password or Zoho's secrets", () => {
    const outbox = { provider: "outbox", inbox: "leads@example.co.za", outboxFile: "data/outbox.jsonl", timeoutMs: 10_000 };
    expect(describeConfig(parse({ FORM_INBOX: "leads@example.co.za" })).delivery).toEqual({ ...outbox, endpoint: "https://api.web3forms.com", to: "outbox" });
    const keyed = describeConfig(parse({ FORM_ACCESS_KEY: "sk-very-secret", DATABASE_URL: "postgres://user:pw@db:5432/agency" }));
    expect(keyed).toMatchObject({ leadStore: "postgres db:5432/agency", delivery: { to: "provider", endpoint: "https://api.web3forms.com" } });
    const zohoCrm = describeConfig(parse({ ...zoho, ZOHO_FIELD_MAP: '{"service":"Service_Wanted"}' }));
    expect(zohoCrm.delivery).toMatchObject({
      provider: "zoho-crm",
      endpoint: "https://accounts.zoho.com",
      to: "provider",
      zoho: { referenceField: "Website_Reference", fieldMap: { service: { field: "Service_Wanted", max: 255 } } },
    });
    expect(JSON.stringify([keyed, zohoCrm])).not.toMatch(/sk-very-secret|pw|zoho-client-secret-value|zoho-refresh-token-value|1000\.CLIENTID/);
  });
});

describe("privacyFacts", () => {
  it("tells the privacy notice where forms go, how long delivered ones are kept and the booking page's host, never the key", () => {
    expect(privacyFacts(parse({}))).toEqual({ formService: null, retentionDays: 30 });
    expect(privacyFacts(parse({ FORM_ACCESS_KEY: "sk-very-secret", FORM_INBOX: "leads@example.co.za", LEAD_RETENTION_DAYS: "7" }))).toEqual({
      formService: { provider: "web3forms", host: "api.web3forms.com", inbox: "leads@example.co.za" },
      retentionDays: 7,
    });
    const webhook = privacyFacts(
      parse({ FORM_PROVIDER: "webhook", FORM_ENDPOINT: "https://hooks.example.net/kopano?token=abc", FORM_ACCESS_KEY: "sk-very-secret" }),
    );
    expect(webhook.formService).toMatchObject({ provider: "webhook", host: "hooks.example.net" });
    expect(JSON.stringify(webhook)).not.toMatch(/sk-very-secret|token=abc/);
    // The booking page by its host alone, nothing of its path or query.
    expect(privacyFacts(parse({ BOOKING_URL: "https://cal.com/kopano/intro?month=2026-12" })).booking).toBe("cal.com");
    expect(privacyFacts(parse({})).booking).toBeUndefined();
  });
});

describe("Zoho CRM settings", () => {
  it("FORM_PROVIDER=zoho-crm needs no FORM_ENDPOINT; the US data centre and Lead_Source 'Website' by default; a field map as JSON", () => {
    const { delivery } = parse(zoho);
    expect(delivery).toMatchObject({ provider: "zoho-crm", endpoint: "https://accounts.zoho.com" });
    const secrets = { clientId: "1000.CLIENTID", clientSecret: "zoho-client-secret-value", refreshToken: "1000.zoho-refresh-token-value" };
    expect(delivery.zoho).toEqual({
      ...secrets,
      accountsUrl: "https://accounts.zoho.com",
      referenceField: "Website_Reference",
      leadSource: "Website",
      leadSourceMap: {},
      fieldMap: {},
      wonStatuses: [],
    });
    const eu = parse({
      ...zoho,
      ZOHO_ACCOUNTS_URL: "https://accounts.zoho.eu",
      ZOHO_LEAD_SOURCE: "Web Site",
      ZOHO_FIELD_MAP: '{"service":"Service_Wanted","estimate":"Estimate"}',
    });
    expect(eu.delivery.zoho).toMatchObject({
      accountsUrl: "https://accounts.zoho.eu",
      leadSource: "Web Site",
      fieldMap: { service: { field: "Service_Wanted", max: 255 }, estimate: { field: "Estimate", max: 255 } },
    });
    expect(privacyFacts(eu).formService).toEqual({ provider: "zoho-crm", host: "accounts.zoho.eu", inbox: site.email });
  });

  it("the source's parts may be mapped, each to a field of the length the operator made it; Lead_Source by source, as picklist values the operator names", () => {
    const config = parse({
      ...zoho,
      ZOHO_FIELD_MAP: '{"utm_campaign":"UTM_Campaign","source":{"field":"Came_From","max":120},"message":{"field":"Project","max":32000}}',
      ZOHO_LEAD_SOURCE_MAP: '{"Search:Google":"Google AdWords","newsletter":"Newsletter","link":"External Referral"}',
    });
    expect(config.delivery.zoho).toMatchObject({
      fieldMap: { utm_campaign: { field: "UTM_Campaign", max: 255 }, source: { field: "Came_From", max: 120 }, message: { field: "Project", max: 32000 } },
      leadSourceMap: { "search:google": "Google AdWords", newsletter: "Newsletter", link: "External Referral" },
    });
    expect(parse({ ...zoho, ZOHO_FIELD_MAP: '{"message":"Project"}' }).delivery.zoho!.fieldMap).toEqual({ message: { field: "Project", max: 2000 } });
  });

  it("ZOHO_WON_STATUSES: the Lead_Status values counted as won, as the picklist spells them; one longer than a picklist value is refused", () => {
    expect(parse({ ...zoho, ZOHO_WON_STATUSES: " Contract Signed, Pre-Qualified ,," }).delivery.zoho!.wonStatuses).toEqual([
      "Contract Signed",
      "Pre-Qualified",
    ]);
    expect(() => parse({ ...zoho, ZOHO_WON_STATUSES: "x".repeat(121) })).toThrow(
      "Invalid configuration: ZOHO_WON_STATUSES must be a comma-separated list of Lead_Status values, each up to 120 characters",
    );
  });
});

describe("proxyExpectedButUntrusted", () => {
  it("is true only when the site listens on loopback alone, so only a proxy on the same machine reaches it, and TRUST_PROXY is unset", () => {
    const expected = (env: Record<string, string | undefined>) => proxyExpectedButUntrusted(parseConfig(env, "1.2.3"));
    expect([{ HOST: "127.0.0.1" }, { HOST: "::1" }, { HOST: "localhost" }, { HOST: "127.0.0.2" }].map(expected)).toEqual([true, true, true, true]);
    expect(
      [{}, { HOST: "0.0.0.0" }, { HOST: "10.0.0.5" }, { HOST: "127.0.0.1", TRUST_PROXY: "loopback" }, { HOST: "::1", TRUST_PROXY: "1" }].map(expected),
    ).toEqual([false, false, false, false, false]);
  });
});
