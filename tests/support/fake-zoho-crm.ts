/**
 * A fake Zoho CRM on loopback, both of Zoho's servers in one, built from Zoho's documentation: the
 * token (`POST /oauth/v2/token`: invalid_code or invalid_client for what it does not know) and
 * `POST /crm/v8/Leads/upsert` (401 INVALID_TOKEN for a token it did not issue or that expired; the
 * standard Leads layout's checks: Last_Name and Company mandatory, LENGTHS, a Lead_Source picklist,
 * `unique` fields; then inserted, or the `duplicate_check_fields` match updated), and `GET /crm/v8/Leads` by `ids`
 * (Get Records: `fields` required; `converted` false by default, true, both; 204 when none match). Modes, for the
 * next `times` upserts holding `match`: tooMany (429), fail500, storeThenHang (stores, never answers).
 */
import { randomBytes, randomInt } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type ZohoMode = "ok" | "tooMany" | "fail500" | "storeThenHang";
/** `updates`: since it was inserted; `converted`: its $converted_detail once converted (the ids of what it became). */
type ZohoRecord = { id: string; fields: Record<string, unknown>; updates: number; converted?: Record<string, string> };
export type FakeZohoCrm = Awaited<ReturnType<typeof startFakeZohoCrm>>;

const json = (res: ServerResponse, status: number, body: unknown) =>
  void res.writeHead(status, { "Content-Type": "application/json;charset=UTF-8" }).end(JSON.stringify(body));
const read = async (req: IncomingMessage) => {
  let data = "";
  for await (const chunk of req.setEncoding("utf8")) data += chunk as string;
  return data;
};
const error = (code: string, message: string, details: Record<string, unknown> = {}) => ({ code, details, message, status: "error" });
/** An error about one field of the record, as Zoho answers it. */
const fieldError = (code: string, message: string, field: string, details: Record<string, unknown> = {}) => ({
  data: [error(code, message, { ...details, api_name: field, json_path: `$.data[0].${field}` })],
});
const token = () => `1000.${randomBytes(16).toString("hex")}`;

/**
 * What Zoho's standard Leads fields hold, in characters (its help, "Standard Modules & Fields"),
 * counted as Zoho's Java counts a string (UTF-16 units, as JavaScript does).
 */
const LENGTHS: Record<string, number> = { First_Name: 40, Last_Name: 80, Company: 100, Email: 100, Phone: 30, Mobile: 30, Description: 32_000 };

type Options = { unique?: string[]; expiresIn?: number; fields?: Record<string, number>; leadSources?: string[] };
export async function startFakeZohoCrm({ unique = [], expiresIn = 3600, fields = {}, leadSources }: Options = {}) {
  const credentials = { clientId: "1000.FAKECLIENTID", clientSecret: `secret-${randomBytes(8).toString("hex")}`, refreshToken: token() };
  const tokens = new Map<string, number>(); // token → expires at
  const records: ZohoRecord[] = [];
  let [mode, left, match, tokenRequests, upserts, delay] = ["ok" as ZohoMode, 0, "", 0, 0, 0];
  let url = "";

  function refresh(res: ServerResponse, form: URLSearchParams) {
    tokenRequests += 1;
    if (form.get("grant_type") !== "refresh_token") return json(res, 200, { error: "unsupported_grant_type" });
    if (form.get("client_id") !== credentials.clientId || form.get("client_secret") !== credentials.clientSecret)
      return json(res, 200, { error: "invalid_client" });
    if (form.get("refresh_token") !== credentials.refreshToken) return json(res, 200, { error: "invalid_code" });
    const value = `${token()}.${randomBytes(16).toString("hex")}`;
    tokens.set(value, Date.now() + expiresIn * 1000);
    json(res, 200, { access_token: value, scope: "ZohoCRM.modules.leads.ALL", api_domain: url, token_type: "Bearer", expires_in: expiresIn });
  }

  function upsert(req: IncomingMessage, res: ServerResponse, raw: string) {
    upserts += 1;
    const auth = /^Zoho-oauthtoken (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!auth || (tokens.get(auth) ?? 0) <= Date.now()) return json(res, 401, error("INVALID_TOKEN", "invalid oauth token"));
    const applies = left > 0 && raw.includes(match);
    const current = applies ? mode : "ok";
    if (applies && --left === 0) mode = "ok";
    if (current === "tooMany") return json(res, 429, error("TOO_MANY_REQUESTS", "Too many requests"));
    if (current === "fail500") return json(res, 500, error("INTERNAL_ERROR", "Internal Server Error"));
    const body = JSON.parse(raw) as { data?: Record<string, unknown>[]; duplicate_check_fields?: string[] };
    const input = body.data?.[0];
    if (!input || body.data!.length !== 1) return json(res, 400, error("INVALID_DATA", "invalid data", { expected_data_type: "jsonarray", api_name: "data" }));
    for (const field of ["Last_Name", "Company"])
      if (typeof input[field] !== "string" || input[field] === "") return json(res, 400, fieldError("MANDATORY_NOT_FOUND", "required field not found", field));
    for (const [field, value] of Object.entries(input)) {
      const max = LENGTHS[field] ?? fields[field] ?? 255; // a Single Line's
      if (typeof value === "string" && field !== "Lead_Source" && value.length > max)
        return json(res, 400, fieldError("INVALID_DATA", "invalid data", field, { maximum_length: max }));
    }
    if (leadSources && input.Lead_Source !== undefined && !leadSources.includes(String(input.Lead_Source)))
      return json(res, 400, fieldError("INVALID_DATA", "invalid data", "Lead_Source"));
    const key = body.duplicate_check_fields?.[0];
    const existing = key === undefined ? undefined : records.find((r) => r.fields[key] === input[key]);
    for (const field of unique) {
      const other = records.find((r) => r !== existing && input[field] !== undefined && r.fields[field] === input[field]);
      if (other)
        return json(res, 400, fieldError("DUPLICATE_DATA", "duplicate data", field, { duplicate_record: { module: { api_name: "Leads" }, id: other.id } }));
    }
    const record = existing ?? { id: `5725767${randomInt(1e11, 1e12)}`, fields: {}, updates: -1 };
    if (!existing) records.push(record);
    Object.assign(record.fields, input);
    record.updates += 1;
    if (current === "storeThenHang") return;
    const [at, who] = [new Date().toISOString().replace(/\.\d+Z$/, "+00:00"), { name: "Agency Admin", id: "5725767000000411001" }];
    const details = { Modified_Time: at, Modified_By: who, Created_Time: at, id: record.id, Created_By: who };
    const [action, message] = existing ? ["update", "record updated"] : ["insert", "record added"];
    json(res, existing ? 200 : 201, { data: [{ code: "SUCCESS", duplicate_field: existing ? key : null, action, details, message, status: "success" }] });
  }

  function getRecords(req: IncomingMessage, res: ServerResponse, query: URLSearchParams) {
    const auth = /^Zoho-oauthtoken (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!auth || (tokens.get(auth) ?? 0) <= Date.now()) return json(res, 401, error("INVALID_TOKEN", "invalid oauth token"));
    const fields = query.get("fields")?.split(",");
    if (!fields) return json(res, 400, error("REQUIRED_PARAM_MISSING", "One of the expected parameter is missing", { param: "fields" }));
    const ids = query.get("ids")?.split(",") ?? [];
    if (ids.length > 100) return json(res, 400, error("LIMIT_EXCEEDED", "the number of ids exceeds the limit", { param: "ids", maximum_length: 100 }));
    const converted = query.get("converted") ?? "false";
    const found = records.filter((r) => ids.includes(r.id) && (converted === "both" || String(r.converted !== undefined) === converted));
    if (found.length === 0) return void res.writeHead(204).end();
    const data = found.map((r) => ({
      ...Object.fromEntries(fields.map((field) => [field, r.fields[field] ?? null])),
      id: r.id,
      $converted: r.converted !== undefined,
      $converted_detail: r.converted ?? {},
    }));
    json(res, 200, { data, info: { per_page: 200, count: data.length, page: 1, more_records: false } });
  }

  const server = createServer((req, res) => {
    const { pathname, search } = new URL(req.url ?? "/", "http://fake");
    read(req)
      .then(async (raw) => {
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
        // Zoho takes the token's parameters in the query string or, as it recommends, in the body.
        if (req.method === "POST" && pathname === "/oauth/v2/token") return refresh(res, new URLSearchParams(raw || search));
        if (req.method === "POST" && pathname === "/crm/v8/Leads/upsert") return upsert(req, res, raw);
        if (req.method === "GET" && pathname === "/crm/v8/Leads") return getRecords(req, res, new URLSearchParams(search));
        json(res, 404, error("INVALID_URL_PATTERN", "Please check if the URL trying to access is a correct one"));
      })
      .catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url, // the accounts URL (ZOHO_ACCOUNTS_URL) and the api_domain it hands out
    ...credentials,
    records: () => records,
    /** The records whose `field` (default Description) contains `text`. */
    find: (text: string, field = "Description") => records.filter((r) => String(r.fields[field] ?? "").includes(text)),
    /** Converts the lead whose `field` holds `reference`, as the agency does in Zoho (to a contact and account, and a deal). */
    convert(reference: string, field = "Website_Reference") {
      const record = records.find((r) => r.fields[field] === reference)!;
      const id = () => `5725767${randomInt(1e11, 1e12)}`;
      record.converted = { contact: id(), account: id(), deal: id(), converted_date_time: new Date().toISOString().replace(/\.\d+Z$/, "+00:00") };
    },
    /** Sets a field of the lead whose `field` holds `reference` (a Lead_Status the agency gives it). */
    set(reference: string, name: string, value: string, field = "Website_Reference") {
      records.find((r) => r.fields[field] === reference)!.fields[name] = value;
    },
    /** Every access token issued so far, for checking that none leaks. */
    issued: () => [...tokens.keys()],
    tokenRequests: () => tokenRequests,
    upserts: () => upserts,
    /** Makes every token issued so far expired, as an hour's wait would. */
    expireTokens: () => tokens.forEach((_, value) => tokens.set(value, 0)),
    setMode: (next: ZohoMode, times = Infinity, only = "") => void ([mode, left, match] = [next, next === "ok" ? 0 : times, only]),
    setDelay: (ms: number) => void (delay = ms),
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

/** A site's settings to deliver to this fake Zoho CRM, its data in `dir`. */
export const zohoEnv = (zoho: FakeZohoCrm, dir: string, extra: Record<string, string> = {}) => ({
  FORM_PROVIDER: "zoho-crm",
  ZOHO_CLIENT_ID: zoho.clientId,
  ZOHO_CLIENT_SECRET: zoho.clientSecret,
  ZOHO_REFRESH_TOKEN: zoho.refreshToken,
  ZOHO_ACCOUNTS_URL: zoho.url,
  ZOHO_REFERENCE_FIELD: "Website_Reference",
  DATA_DIR: dir,
  ...extra,
});
