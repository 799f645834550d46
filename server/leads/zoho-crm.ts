/**
 * Delivery to Zoho CRM (FORM_PROVIDER=zoho-crm): each lead becomes a CRM Lead through Zoho's
 * upsert API, unique on the field that holds the lead's reference, so a lead sent again (its
 * answer lost, the process killed mid-send) updates the record Zoho already made instead of
 * adding a second one: exactly once, end to end (decision 0035).
 *
 * OAuth as Zoho documents it for a self client: an access token from
 * `{accounts}/oauth/v2/token` (grant_type=refresh_token), kept in memory until shortly before it
 * expires, fetched once however many deliveries wait for it, and again once when Zoho answers
 * 401 INVALID_TOKEN. The API's host is the `api_domain` that answer names. No token, secret or
 * lead text ever goes into an outcome: the queues log outcomes. One attempt, however many
 * requests it makes, takes at most FORM_TIMEOUT_MS: its claim on the lead lasts that and 5 s.
 */
import { answerFields, fieldsOf, messageText, post, unanswered, type Answer } from "./send";
import type { DeliveryOutcome, StoredLead, Transport } from "./types";

/** The lead's parts an operator may file in fields of their own (ZOHO_FIELD_MAP). */
export const MAPPABLE = ["service", "timeframe", "complexity", "estimate", "message"] as const;
type Mappable = (typeof MAPPABLE)[number];

export interface ZohoSettings {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  /** The data centre's accounts server, e.g. https://accounts.zoho.eu. */
  accountsUrl: string;
  /** The API name of the unique single-line field on Leads that holds the lead's reference. */
  referenceField: string;
  leadSource: string;
  /** Lead part → the API name of the Leads field it goes into. */
  fieldMap: Partial<Record<Mappable, string>>;
}

type Failure = Extract<DeliveryOutcome, { ok: false }>;
interface Token {
  value: string;
  apiDomain: string;
  /** When to fetch a new one (ms): a few minutes before Zoho says it expires. */
  renewAt: number;
}

/** Zoho's refusals of the credentials themselves: only an operator can fix them. */
const CREDENTIALS_REFUSED = ["invalid_code", "invalid_client", "unauthorized_client"];
/** Refusals of the lead as sent: sending it again cannot help. */
const LEAD_REFUSED = ["INVALID_DATA", "MANDATORY_NOT_FOUND", "DUPLICATE_DATA", "PATTERN_NOT_MATCHED", "LIMIT_EXCEEDED"];
/** Zoho's limits on its standard Leads fields (characters). */
const LAST_NAME_MAX = 80;

const retryable = (status: number) => status === 408 || status === 425 || status === 429 || status >= 500;
/** Zoho's code for an answer, when it has the shape of one (never anything longer). */
const codeOf = (value: unknown) => (typeof value === "string" && /^[A-Za-z_]{1,40}$/.test(value) ? value : undefined);

/** The lead as a record of Zoho's Leads module. */
export function leadRecord(lead: StoredLead, settings: ZohoSettings): Record<string, string> {
  const fields = lead.fields;
  const person = fields?.name || undefined;
  const company = fields?.company || person || lead.fromName;
  const record: Record<string, string> = {
    // Mandatory in Zoho's standard layout, both: the person when given, else the company.
    Last_Name: (person ?? company).slice(0, LAST_NAME_MAX),
    Company: company,
    Email: lead.replyTo,
    Description: messageText(lead),
    Lead_Source: settings.leadSource,
  };
  if (fields?.phone) record.Phone = fields.phone;
  for (const part of MAPPABLE) {
    const target = settings.fieldMap[part];
    const value = fields?.[part];
    if (target && value) record[target] = value;
  }
  record[settings.referenceField] = lead.id;
  return record;
}

export function createZohoTransport(settings: ZohoSettings, timeoutMs: number, now: () => number = Date.now): Transport {
  let token: Token | undefined;
  let refreshing: Promise<Token | Failure> | undefined;

  async function refresh(ms: number, stop?: AbortSignal): Promise<Token | Failure> {
    const form = new URLSearchParams({
      grant_type: "refresh_token",
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      refresh_token: settings.refreshToken,
    }).toString();
    const answer = await post(
      new URL("/oauth/v2/token", settings.accountsUrl).href,
      { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      form,
      ms,
      stop,
    );
    if (answer.kind !== "response") return unanswered(answer);
    const body = answerFields(answer.body);
    const error = codeOf(body.error);
    // Zoho answers a refused refresh token with 200 and {"error": "invalid_code"}.
    if (error && CREDENTIALS_REFUSED.includes(error)) return { ok: false, retry: false, reason: `zoho:${error}`, status: answer.status };
    const { access_token: value, api_domain: apiDomain, expires_in: expiresIn } = body;
    if (answer.status !== 200 || typeof value !== "string" || typeof apiDomain !== "string" || !/^https?:\/\/[^/]+$/.test(apiDomain))
      return { ok: false, retry: true, reason: error ? `zoho:${error}` : "rejected", status: answer.status };
    const seconds = typeof expiresIn === "number" && expiresIn > 0 ? expiresIn : 3600;
    return { value, apiDomain, renewAt: now() + Math.max(seconds - 300, seconds / 2) * 1000 };
  }

  /**
   * A token still good, or the one a refresh brings: one refresh at a time, shared by every
   * delivery waiting (all of one queue, with its one `stop`).
   */
  async function accessToken(ms: number, stop?: AbortSignal, refused?: string): Promise<Token | Failure> {
    if (token && token.value !== refused && now() < token.renewAt) return token;
    refreshing ??= refresh(ms, stop).finally(() => (refreshing = undefined));
    const fresh = await refreshing;
    if ("value" in fresh) token = fresh;
    return fresh;
  }

  async function upsert(lead: StoredLead, auth: Token, ms: number, stop?: AbortSignal): Promise<Answer> {
    const body = JSON.stringify({ data: [leadRecord(lead, settings)], duplicate_check_fields: [settings.referenceField] });
    const headers = { Authorization: `Zoho-oauthtoken ${auth.value}`, "Content-Type": "application/json", Accept: "application/json" };
    return post(`${auth.apiDomain}/crm/v8/Leads/upsert`, headers, body, ms, stop);
  }

  /** Success is strict: one SUCCESS entry, an insert or an update, and the record's id. */
  function outcome(status: number, raw: string): DeliveryOutcome {
    const body = answerFields(raw);
    const entry = fieldsOf(Array.isArray(body.data) ? body.data[0] : undefined);
    const details = fieldsOf(entry.details);
    if (status >= 200 && status < 300 && entry.code === "SUCCESS" && (entry.action === "insert" || entry.action === "update")) {
      if (typeof details.id === "string" && /^\d{1,30}$/.test(details.id)) return { ok: true, status, record: details.id };
    }
    const code = codeOf(entry.code) ?? codeOf(body.code);
    if (retryable(status)) return { ok: false, retry: true, reason: code ? `zoho:${code}` : "http", status };
    // The reference itself taken: a send of this lead racing another; the next upsert updates it.
    if (code === "DUPLICATE_DATA" && details.api_name === settings.referenceField) return { ok: false, retry: true, reason: `zoho:${code}`, status };
    if (code && LEAD_REFUSED.includes(code)) return { ok: false, retry: false, reason: `zoho:${code}`, status };
    if (status >= 400 && status < 500) return { ok: false, retry: false, reason: code ? `zoho:${code}` : "http", status };
    return { ok: false, retry: true, reason: "rejected", status };
  }

  return {
    name: "zoho-crm",
    async deliver(lead, stop) {
      const deadline = performance.now() + timeoutMs;
      const msLeft = () => Math.max(1, Math.round(deadline - performance.now()));
      let auth = await accessToken(msLeft(), stop);
      if (!("value" in auth)) return auth;
      let answer = await upsert(lead, auth, msLeft(), stop);
      // An access token Zoho no longer takes (expired early, revoked): a new one, and once more.
      if (answer.kind === "response" && answer.status === 401 && codeOf(answerFields(answer.body).code) === "INVALID_TOKEN") {
        auth = await accessToken(msLeft(), stop, auth.value);
        if (!("value" in auth)) return auth;
        answer = await upsert(lead, auth, msLeft(), stop);
        if (answer.kind === "response" && answer.status === 401) return { ok: false, retry: true, reason: "zoho:INVALID_TOKEN", status: 401 };
      }
      return answer.kind === "response" ? outcome(answer.status, answer.body) : unanswered(answer);
    },
  };
}
