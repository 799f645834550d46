/**
 * The settings (docs/operations.md, Settings), read once at start. A bad value stops the start with a line naming the
 * variable, never its value (it may be a secret). Blank counts as unset.
 */
import { hostname } from "node:os";
import { join } from "node:path";
import ipaddr from "ipaddr.js";
import proxyAddr from "proxy-addr";
import { z } from "zod";
import { zarRate } from "~/calculator/pricing";
import type { PrivacyFacts } from "~/content/privacy";
import { site } from "~/content/site";
import { bareHost, normalName, refusal, SOURCE_KINDS, sourceOfKey } from "~/funnel/source";
import { defaultMax, MAPPABLE, type Mappable, ZOHO_LIMITS } from "./leads/zoho-crm";

/** Set, a provider delivers as set or the start stops: never a quiet fallback to the outbox (decision 0049). */
const PROVIDERS = ["web3forms", "formspree", "webhook", "zoho-crm", "outbox"] as const;
const KEYED: readonly string[] = ["web3forms", "webhook"];

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const port = z.coerce.number({ error: "must be a port number" }).int().min(1).max(65535);

/** A value `read` makes something of, or `message` when it throws. */
const readAs = <T>(read: (value: string) => T, message: string) =>
  z.string().transform((value, ctx) => {
    try {
      return read(value);
    } catch {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    }
  });
/** Never "trust everyone": any client could then write its own X-Forwarded-For and pick a fresh bucket. */
const trustProxy = readAs((value): false | number | string[] => {
  if (/^(0|false)$/i.test(value)) return false;
  if (/^\d+$/.test(value)) return Number(value);
  const list = value.split(",").map((entry) => entry.trim());
  proxyAddr.compile(list); // throws on what is no address, CIDR or name
  return list;
}, "must be a number of proxy hops or a list of proxy addresses/CIDRs").default(false);

const apiName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,99}$/, { error: "must be a Zoho field's API name (letters, digits, _)" });
const json = readAs((value) => JSON.parse(value) as unknown, "must be a JSON object");
/** ZOHO_FIELD_MAP: a lead part to a field's API name, or {field, max}; never a field the site fills itself (decision 0042). */
const OWN_FIELDS = ["Last_Name", "Company", "Email", "Phone", "Description", "Lead_Source"];
const fieldMap = json
  .pipe(
    z.partialRecord(z.enum(MAPPABLE), z.union([apiName, z.strictObject({ field: apiName, max: z.int().min(1).max(ZOHO_LIMITS.multiLine) })]), {
      error: `must map ${MAPPABLE.join(", ")} to Zoho field API names (or {"field": API name, "max": characters up to ${ZOHO_LIMITS.multiLine}})`,
    }),
  )
  .transform((map) =>
    Object.fromEntries(Object.entries(map).map(([part, to]) => [part, typeof to === "string" ? { field: to, max: defaultMax(part as Mappable) } : to])),
  )
  .refine((map) => Object.values(map).every((target) => !OWN_FIELDS.includes(target!.field)), {
    error: `must not name a field the site fills itself (${OWN_FIELDS.join(", ")})`,
  })
  .optional();
const picklistValue = { error: "must map sources to Lead_Source values of 1 to 120 characters" };
const leadSourceMap = json
  .pipe(z.record(z.string(), z.string().trim().min(1, picklistValue).max(120, picklistValue), picklistValue))
  .transform((map) => Object.fromEntries(Object.entries(map).map(([key, value]) => [key.trim().toLowerCase(), value])))
  .refine((map) => Object.keys(map).every((key) => (SOURCE_KINDS as readonly string[]).includes(key) || sourceOfKey(key) !== undefined), {
    error: `must name sources by key (e.g. search:google, newsletter/email/spring) or kind (${SOURCE_KINDS.join(", ")})`,
  })
  .optional();
const list = (tidy: (entry: string) => string, ok: (entry: string) => boolean, error: string) =>
  z
    .string()
    .transform((value) => value.split(",").map(tidy).filter(Boolean))
    .refine((entries) => entries.every(ok), { error })
    .default([]);
/** CAMPAIGNS and REFERRER_SITES: by the rule `leads -- campaigns|sites add` keeps (refusal), saying why one is refused, never which. */
const names = (kind: "campaigns" | "sites", tidy: (entry: string) => string, error: string) =>
  z
    .string()
    .transform((value, ctx) => {
      const entries = value.split(",").filter((entry) => entry.trim());
      const why = entries.map((entry) => refusal(kind, entry)).find(Boolean);
      if (why) ctx.addIssue({ code: "custom", message: `${error}: ${why.replace(/^it /, "one ")}` });
      return [...new Set(entries.map(tidy))];
    })
    .default([]);
const timeout = { error: "must be 1000 to 30000" };
const days = { error: "must be a whole number of days, 0 or more" };
const perHour = { error: "must be a whole number, 1 or more" };
const ZOHO_REQUIRED = ["ZOHO_CLIENT_ID", "ZOHO_CLIENT_SECRET", "ZOHO_REFRESH_TOKEN", "ZOHO_REFERENCE_FIELD"] as const;

/** Rand to the dollar as an operator writes it, 1 to 999.9999: no 0x12, 1e3 or 0.000001 read as some other rate. */
const RAND_RATE = /^[1-9]\d{0,2}(\.\d{1,4})?$/;
const schema = z
  .object({
    NODE_ENV: z.enum(["production", "development", "test"]).default("production"),
    PORT: port.default(3000),
    HOST: z.string().optional(),
    FORM_PROVIDER: z.enum(PROVIDERS, { error: `must be one of ${PROVIDERS.join(", ")}` }).optional(),
    FORM_ENDPOINT: httpUrl.optional(),
    FORM_ACCESS_KEY: z
      .string()
      .regex(/^[\x21-\x7e]+$/, { error: "must be printable ASCII with no spaces" })
      .optional(),
    FORM_INBOX: z.email({ error: "must be an email address" }).default(site.email),
    FORM_TIMEOUT_MS: z.coerce.number().int().min(1000, timeout).max(30_000, timeout).default(10_000),
    DATA_DIR: z.string().default("data"),
    OUTBOX_FILE: z.string().optional(),
    LEAD_RETENTION_DAYS: z.coerce.number(days).int(days).min(0, days).max(3650, { error: "must be at most 3650" }).default(30),
    LEADS_PER_HOUR: z.coerce.number(perHour).int(perHour).min(1, perHour).default(60),
    TRUST_PROXY: trustProxy,
    SITE_ORIGIN: list(
      (entry) => entry.trim().toLowerCase(),
      (entry) => /^https?:\/\//.test(entry) && URL.parse(entry)?.origin === entry,
      "must be a comma-separated list of origins, each scheme://host[:port] (no path, no default port)",
    ),
    CAMPAIGNS: names("campaigns", normalName, "must be a comma-separated list of names (a-z, 0-9, . and -, up to 40 each; not direct, other or link)"),
    REFERRER_SITES: names("sites", bareHost, "must be a comma-separated list of host names"),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// or postgresql:// URL" }).optional(),
    APP_VERSION: z.string().optional(),
    BOOKING_URL: z.url({ protocol: /^https$/, error: "must be an https URL" }).optional(),
    METRICS_PORT: port.optional(),
    USD_ZAR_RATE: z.string().trim().regex(RAND_RATE, "must be rand to the dollar, e.g. 18.45").transform(Number).optional(),
    USD_ZAR_RATE_DATE: z.iso.date({ error: "must be a calendar date, YYYY-MM-DD" }).optional(),
    // A container's name, so the alerts' `docker logs <name>` runs as written.
    CONTAINER_NAME: z
      .string()
      .max(63, { error: "must be at most 63 characters" })
      .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/, { error: "must be a container's name: letters, digits, '.', '_' and '-'" })
      .optional(),
    ZOHO_CLIENT_ID: z.string().optional(),
    ZOHO_CLIENT_SECRET: z.string().optional(),
    ZOHO_REFRESH_TOKEN: z.string().optional(),
    ZOHO_ACCOUNTS_URL: httpUrl.default("https://accounts.zoho.com"),
    ZOHO_REFERENCE_FIELD: apiName.optional(),
    ZOHO_LEAD_SOURCE: z.string().max(120, { error: "must be at most 120 characters" }).default("Website"),
    ZOHO_FIELD_MAP: fieldMap,
    ZOHO_LEAD_SOURCE_MAP: leadSourceMap,
    // Lead_Status values the agency counts as won, beside a converted lead (decision 0053): as the picklist spells them.
    ZOHO_WON_STATUSES: list(
      (entry) => entry.trim(),
      (entry) => entry.length <= 120,
      "must be a comma-separated list of Lead_Status values, each up to 120 characters",
    ),
  })
  .superRefine((env, ctx) => {
    const provider = env.FORM_PROVIDER;
    if ((provider === "formspree" || provider === "webhook") && !env.FORM_ENDPOINT)
      ctx.addIssue({ code: "custom", path: ["FORM_ENDPOINT"], message: `must be set when FORM_PROVIDER is ${provider}` });
    if (provider && KEYED.includes(provider) && !env.FORM_ACCESS_KEY)
      ctx.addIssue({ code: "custom", path: ["FORM_ACCESS_KEY"], message: `must be set when FORM_PROVIDER is ${provider}` });
    // A rate without its date could be any day's: both or neither.
    if (!env.USD_ZAR_RATE !== !env.USD_ZAR_RATE_DATE)
      ctx.addIssue({ code: "custom", path: [env.USD_ZAR_RATE ? "USD_ZAR_RATE_DATE" : "USD_ZAR_RATE"], message: "must be set too, or neither" });
    if (provider !== "zoho-crm") return;
    for (const name of ZOHO_REQUIRED) if (!env[name]) ctx.addIssue({ code: "custom", path: [name], message: "must be set when FORM_PROVIDER is zoho-crm" });
    if (Object.values(env.ZOHO_FIELD_MAP ?? {}).some((target) => target!.field === env.ZOHO_REFERENCE_FIELD))
      ctx.addIssue({ code: "custom", path: ["ZOHO_FIELD_MAP"], message: "must not name ZOHO_REFERENCE_FIELD" });
  });

export type Config = ReturnType<typeof parseConfig>;

/** Throws one line, e.g. "Invalid configuration: PORT must be a port number". */
export function parseConfig(env: Record<string, string | undefined>, version: string) {
  const present = Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value?.trim() || undefined]));
  const result = schema.safeParse(present);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${String(issue.path[0] ?? "environment")} ${issue.message}`);
    throw new Error(`Invalid configuration: ${[...new Set(problems)].join("; ")}`);
  }
  const e = result.data;
  const provider = e.FORM_PROVIDER ?? (e.FORM_ACCESS_KEY ? "web3forms" : "outbox");
  return {
    dev: e.NODE_ENV === "development",
    port: e.PORT,
    host: e.HOST,
    metricsPort: e.METRICS_PORT,
    container: e.CONTAINER_NAME ?? hostname(),
    version: e.APP_VERSION ?? version,
    trustProxy: e.TRUST_PROXY,
    siteOrigins: e.SITE_ORIGIN,
    databaseUrl: e.DATABASE_URL,
    bookingUrl: e.BOOKING_URL,
    zar: e.USD_ZAR_RATE ? zarRate(e.USD_ZAR_RATE, e.USD_ZAR_RATE_DATE!) : undefined,
    sources: { names: new Set(e.CAMPAIGNS), sites: e.REFERRER_SITES, ownHosts: e.SITE_ORIGIN.map((origin) => new URL(origin).host) },
    dataDir: e.DATA_DIR,
    leadsDb: join(e.DATA_DIR, "leads.db"),
    funnelDb: join(e.DATA_DIR, "funnel.db"),
    retentionDays: e.LEAD_RETENTION_DAYS,
    leadsPerHour: e.LEADS_PER_HOUR,
    delivery: {
      provider,
      endpoint: e.FORM_ENDPOINT ?? (provider === "zoho-crm" ? e.ZOHO_ACCOUNTS_URL : "https://api.web3forms.com/submit"),
      accessKey: e.FORM_ACCESS_KEY,
      inbox: e.FORM_INBOX,
      outboxFile: e.OUTBOX_FILE ?? join(e.DATA_DIR, "outbox.jsonl"),
      timeoutMs: e.FORM_TIMEOUT_MS,
      zoho:
        provider === "zoho-crm"
          ? {
              clientId: e.ZOHO_CLIENT_ID!,
              clientSecret: e.ZOHO_CLIENT_SECRET!,
              refreshToken: e.ZOHO_REFRESH_TOKEN!,
              accountsUrl: e.ZOHO_ACCOUNTS_URL,
              referenceField: e.ZOHO_REFERENCE_FIELD!,
              leadSource: e.ZOHO_LEAD_SOURCE,
              leadSourceMap: e.ZOHO_LEAD_SOURCE_MAP ?? {},
              fieldMap: e.ZOHO_FIELD_MAP ?? {},
              wonStatuses: e.ZOHO_WON_STATUSES,
            }
          : undefined,
    },
  };
}

/** Listening on loopback alone (only a proxy reaches it) with TRUST_PROXY unset: every visitor would be one bucket. */
export function proxyExpectedButUntrusted(config: Config): boolean {
  const host = config.host === "localhost" ? "127.0.0.1" : config.host;
  return config.trustProxy === false && host !== undefined && ipaddr.isValid(host) && ipaddr.process(host).range() === "loopback";
}

/** What the privacy notice states about this configuration. */
export function privacyFacts(config: Config): PrivacyFacts {
  const { provider, endpoint, inbox } = config.delivery;
  return {
    formService: provider === "outbox" ? null : { provider, host: new URL(endpoint).host, inbox },
    retentionDays: config.retentionDays,
    ...(config.bookingUrl ? { booking: new URL(config.bookingUrl).host } : {}),
  };
}

/** The start line's settings: no key, no Zoho secret, no database password. */
export function describeConfig(config: Config) {
  const { provider, inbox, outboxFile, timeoutMs, endpoint, zoho } = config.delivery;
  return {
    version: config.version,
    metricsPort: config.metricsPort ?? null,
    container: config.container,
    trustProxy: config.trustProxy,
    siteOrigins: config.siteOrigins,
    leadStore: config.databaseUrl ? `postgres ${new URL(config.databaseUrl).host}${new URL(config.databaseUrl).pathname}` : config.leadsDb,
    leadRetentionDays: config.retentionDays,
    leadsPerHour: config.leadsPerHour,
    bookingUrl: config.bookingUrl ?? null,
    usdZar: config.zar ?? null,
    campaigns: [...config.sources.names],
    referrerSites: config.sources.sites,
    delivery: {
      provider,
      inbox,
      outboxFile,
      timeoutMs,
      endpoint: new URL(endpoint).origin,
      to: provider === "outbox" ? "outbox" : "provider",
      zoho: zoho && {
        referenceField: zoho.referenceField,
        leadSource: zoho.leadSource,
        leadSourceMap: zoho.leadSourceMap,
        fieldMap: zoho.fieldMap,
        wonStatuses: zoho.wonStatuses,
      },
    },
  };
}
