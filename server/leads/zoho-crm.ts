/**
 * Delivery to Zoho CRM (decision 0035): an upsert unique on the reference field, so a lead sent again updates its
 * record. No token, secret or lead text goes into an outcome (they are logged); one attempt, however many requests it
 * makes, takes at most FORM_TIMEOUT_MS (its claim on the lead lasts that).
 */
import { type Source, sourceKey, sourceParts } from "~/funnel/source";
import { type Answer, answerFields, fieldsOf, get, messageText, post, retryable, unanswered } from "./send";
import type { DeliveryOutcome, StoredLead } from "./types";

/** What ZOHO_FIELD_MAP may file in fields of their own: the form's parts, and its source's (sourceParts). */
const FORM_PARTS = ["service", "timeframe", "complexity", "estimate", "message"] as const;
const SOURCE_PARTS = ["source", "source_kind", "utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term", "referrer"] as const;
export const MAPPABLE = [...FORM_PARTS, ...SOURCE_PARTS] as const;
export type Mappable = (typeof MAPPABLE)[number];

/** Zoho's published limits in characters (decision 0042): one value over its field's makes Zoho refuse the whole record. */
export const ZOHO_LIMITS = { Last_Name: 80, Company: 100, Email: 100, Phone: 30, singleLine: 255, multiLine: 32_000 } as const;
/** Unless the map says: a Single Line's 255, `message` a Multi Line (Small)'s 2,000. */
export const defaultMax = (part: Mappable) => (part === "message" ? 2_000 : ZOHO_LIMITS.singleLine);

export interface ZohoSettings {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  accountsUrl: string;
  referenceField: string;
  leadSource: string;
  leadSourceMap?: Readonly<Record<string, string>>;
  fieldMap: Partial<Record<Mappable, { field: string; max: number }>>;
  /** ZOHO_WON_STATUSES: a lead with one of these Lead_Status values is won, as a converted one is. */
  wonStatuses?: readonly string[];
}

type Failure = Extract<DeliveryOutcome, { ok: false }>;
type Token = { value: string; apiDomain: string; renewAt: number };

/** Refusals only an operator can fix (the credentials), and refusals of the lead as sent: sending again cannot help. */
const CREDENTIALS_REFUSED = ["invalid_code", "invalid_client", "unauthorized_client"];
const LEAD_REFUSED = ["INVALID_DATA", "MANDATORY_NOT_FOUND", "DUPLICATE_DATA", "PATTERN_NOT_MATCHED", "LIMIT_EXCEEDED"];

/** Zoho's code, when it has the shape of one (never anything longer). */
const codeOf = (value: unknown) => (typeof value === "string" && /^[A-Za-z_]{1,40}$/.test(value) ? value : undefined);

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });
/** Cut at a character's end (never inside an emoji), ending "…". Counted in UTF-16 units as Java (Zoho) counts: never fewer than a reader sees. */
export function cut(value: string, max: number): string {
  if (value.length <= max) return value;
  let kept = "";
  for (const { segment } of graphemes.segment(value)) {
    if (kept.length + segment.length > max - 1) break;
    kept += segment;
  }
  return `${kept.trimEnd()}…`;
}

/** The operator's value for the source (by key, a campaign's first parts, then kind), else ZOHO_LEAD_SOURCE. */
export function leadSourceOf(source: Source | undefined, settings: Pick<ZohoSettings, "leadSource" | "leadSourceMap">): string {
  const map = settings.leadSourceMap ?? {};
  if (!source) return settings.leadSource;
  const key = sourceKey(source);
  // A campaign's content and term narrow it further: a map naming the campaign still applies.
  const narrower =
    source.kind === "campaign"
      ? [
          key,
          sourceKey({ kind: "campaign", source: source.source, medium: source.medium, campaign: source.campaign }),
          `${source.source}/${source.medium ?? ""}`,
          source.source,
        ]
      : [key];
  const named = [...narrower, source.kind].find((candidate) => Object.hasOwn(map, candidate));
  return named === undefined ? settings.leadSource : map[named]!;
}

function partsOf(lead: StoredLead): Partial<Record<Mappable, string>> {
  if (!lead.source) return { ...lead.fields };
  const { text, kind, ...named } = sourceParts(lead.source);
  return { ...lead.fields, source: text, source_kind: kind, ...named };
}

/**
 * Every value within its field's limit (decision 0042): one cut, or an email left out (cut, it would be another
 * address), is whole in the Description, which says so. `Lead_Source` is only a value the operator wrote.
 */
export function leadRecord(lead: StoredLead, settings: ZohoSettings): Record<string, string> {
  const fields = lead.fields;
  const person = fields?.name || undefined;
  const company = fields?.company || person || lead.fromName;
  const notes: string[] = [];
  const fit = (field: string, value: string, max: number) => {
    const fitted = cut(value, max);
    if (fitted !== value) notes.push(`${field} cut to ${max.toLocaleString("en")} characters`);
    return fitted;
  };
  const record: Record<string, string> = {
    // Both mandatory in Zoho's standard layout.
    Last_Name: fit("Last_Name", person ?? company, ZOHO_LIMITS.Last_Name),
    Company: fit("Company", company, ZOHO_LIMITS.Company),
    Lead_Source: leadSourceOf(lead.source, settings),
  };
  if (lead.replyTo.length <= ZOHO_LIMITS.Email) record.Email = lead.replyTo;
  else notes.push(`Email left out: the address has ${lead.replyTo.length} characters, Zoho's Email field holds ${ZOHO_LIMITS.Email}`);
  if (fields?.phone) record.Phone = fit("Phone", fields.phone, ZOHO_LIMITS.Phone);
  const parts = partsOf(lead);
  for (const part of MAPPABLE) {
    const target = settings.fieldMap[part];
    const value = parts[part];
    if (target && value) record[target.field] = fit(target.field, value, target.max);
  }
  const said = notes.length ? [`Zoho CRM's fields hold less than was sent: ${notes.join("; ")}. The whole values are in this Description.`] : [];
  // The Description holds 32,000: the forms' limits (app/forms/limits.ts) keep a lead's text under 12,000 UTF-16 units.
  record.Description = messageText(lead, said);
  record[settings.referenceField] = lead.id;
  return record;
}

/** A delivered lead as Zoho has it now: converted (to a contact, an account, perhaps a deal), else its Lead_Status. */
export type CrmState = { converted: boolean; status?: string };

export function createZohoTransport(settings: ZohoSettings, timeoutMs: number, now: () => number = Date.now) {
  let token: Token | undefined;
  let refreshing: Promise<Token | Failure> | undefined;

  async function refresh(ms: number, stop?: AbortSignal): Promise<Token | Failure> {
    const { clientId: client_id, clientSecret: client_secret, refreshToken: refresh_token } = settings;
    const form = new URLSearchParams({ grant_type: "refresh_token", client_id, client_secret, refresh_token }).toString();
    const headers = { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" };
    const answer = await post(new URL("/oauth/v2/token", settings.accountsUrl).href, headers, form, ms, stop);
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

  /** One refresh at a time, shared by every delivery waiting. */
  async function accessToken(ms: number, stop?: AbortSignal, refused?: string): Promise<Token | Failure> {
    if (token && token.value !== refused && now() < token.renewAt) return token;
    refreshing ??= refresh(ms, stop).finally(() => (refreshing = undefined));
    const fresh = await refreshing;
    if ("value" in fresh) token = fresh;
    return fresh;
  }

  function outcome(status: number, raw: string): DeliveryOutcome {
    const body = answerFields(raw);
    const entry = fieldsOf(Array.isArray(body.data) ? body.data[0] : undefined);
    const details = fieldsOf(entry.details);
    const saved = status >= 200 && status < 300 && entry.code === "SUCCESS" && (entry.action === "insert" || entry.action === "update");
    if (saved && typeof details.id === "string" && /^\d{1,30}$/.test(details.id)) return { ok: true, status, record: details.id };
    const code = codeOf(entry.code) ?? codeOf(body.code);
    if (retryable(status)) return { ok: false, retry: true, reason: code ? `zoho:${code}` : "http", status };
    // The reference itself taken: two sends of this lead racing; the next upsert updates it.
    if (code === "DUPLICATE_DATA" && details.api_name === settings.referenceField) return { ok: false, retry: true, reason: `zoho:${code}`, status };
    if (code && LEAD_REFUSED.includes(code)) return { ok: false, retry: false, reason: `zoho:${code}`, status };
    if (status >= 400 && status < 500) return { ok: false, retry: false, reason: code ? `zoho:${code}` : "http", status };
    return { ok: false, retry: true, reason: "rejected", status };
  }

  return {
    name: "zoho-crm",
    async deliver(lead: StoredLead, stop?: AbortSignal): Promise<DeliveryOutcome> {
      const deadline = performance.now() + timeoutMs;
      const msLeft = () => Math.max(1, Math.round(deadline - performance.now()));
      const body = JSON.stringify({ data: [leadRecord(lead, settings)], duplicate_check_fields: [settings.referenceField] });
      const json = { "Content-Type": "application/json", Accept: "application/json" };
      const upsert = (auth: Token) =>
        post(`${auth.apiDomain}/crm/v8/Leads/upsert`, { ...json, Authorization: `Zoho-oauthtoken ${auth.value}` }, body, msLeft(), stop);
      const answer = await authorized(upsert, msLeft, stop);
      if ("ok" in answer) return answer;
      return answer.kind === "response" ? outcome(answer.status, answer.body) : unanswered(answer);
    },

    /**
     * What Zoho says of delivered leads, by record id (decision 0053), with Get Records' `ids` (100 a request):
     * `converted=true` answers only converted leads, `converted=false` (with `statuses` to look for) the others' Lead_Status.
     * An id Zoho no longer has is left out; a failure answers nothing.
     */
    async states(records: string[], statuses: readonly string[], stop?: AbortSignal): Promise<Map<string, CrmState> | Failure> {
      const states = new Map<string, CrmState>();
      for (let i = 0; i < records.length; i += 100)
        for (const converted of statuses.length > 0 ? [true, false] : [true]) {
          const query = new URLSearchParams({ ids: records.slice(i, i + 100).join(","), converted: String(converted), fields: "Lead_Status" });
          const read = (auth: Token) =>
            get(`${auth.apiDomain}/crm/v8/Leads?${query}`, { Accept: "application/json", Authorization: `Zoho-oauthtoken ${auth.value}` }, timeoutMs, stop);
          const answer = await authorized(read, () => timeoutMs, stop);
          if ("ok" in answer) return answer;
          if (answer.kind !== "response") return unanswered(answer);
          if (answer.status === 204) continue; // none of them
          const body = answerFields(answer.body);
          if (answer.status !== 200 || !Array.isArray(body.data))
            return { ok: false, retry: true, reason: codeOf(body.code) ? `zoho:${codeOf(body.code)}` : "http", status: answer.status };
          for (const entry of body.data.map(fieldsOf))
            if (typeof entry.id === "string")
              states.set(entry.id, { converted, status: typeof entry.Lead_Status === "string" ? entry.Lead_Status : undefined });
        }
      return states;
    },
  };

  /** A request with the access token; one Zoho no longer takes (expired early, revoked) is renewed, once. */
  async function authorized(call: (auth: Token) => Promise<Answer>, msLeft: () => number, stop?: AbortSignal): Promise<Answer | Failure> {
    let auth = await accessToken(msLeft(), stop);
    if (!("value" in auth)) return auth;
    let answer = await call(auth);
    if (answer.kind === "response" && answer.status === 401 && codeOf(answerFields(answer.body).code) === "INVALID_TOKEN") {
      auth = await accessToken(msLeft(), stop, auth.value);
      if (!("value" in auth)) return auth;
      answer = await call(auth);
      if (answer.kind === "response" && answer.status === 401) return { ok: false, retry: true, reason: "zoho:INVALID_TOKEN", status: 401 };
    }
    return answer;
  }
}
