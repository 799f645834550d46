/**
 * A fake form-submission service on loopback for end-to-end tests. Submissions: `POST /submit`.
 * Control over HTTP (for Playwright workers): `POST /__mode {mode, delayMs?}`, `GET /__received`,
 * `POST /__clear`, each optionally scoped with `?match=<token>` to submissions containing it.
 * tests/support/global-setup.ts starts one per site under test, each site's FORM_ENDPOINT its `/submit`.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * ok: 200 {success:true}; fail500: 500; successFalse: 200 {success:false}; successFalseString:
 * 200 {success:"false"}; html200: 200 with an HTML page (a captive portal, a WAF); unauthorized:
 * 401 (a wrong key); hang: never answers; slow: answers ok after `delayMs`; refuse: destroys each
 * submission's connection at once; hold: answers when `answer()` says how.
 */
export type FakeMode = "ok" | "fail500" | "successFalse" | "successFalseString" | "html200" | "unauthorized" | "hang" | "slow" | "refuse" | "hold";
const FAKE_MODES: readonly FakeMode[] = ["ok", "fail500", "successFalse", "successFalseString", "html200", "unauthorized", "hang", "slow", "refuse", "hold"];

export interface FakeFormService {
  /** Base URL, e.g. "http://127.0.0.1:4599". */
  url: string;
  /** Where the app should post: `${url}/submit`. */
  submitUrl: string;
  port: number;
  /** Every parsed JSON body received on /submit, oldest first (non-JSON bodies as raw strings);
   * with `match`, only those whose raw body contains it. */
  received(match?: string): unknown[];
  /** The same, only those this service answered as accepted (delivered). */
  accepted(match?: string): unknown[];
  /** The request headers of each submission `received(match)` lists, in the same order. */
  headers(match?: string): IncomingHttpHeaders[];
  clear(match?: string): void;
  /** With `match`, the mode applies only to submissions whose raw body contains it. */
  setMode(mode: FakeMode, delayMs?: number, match?: string): void;
  /** Answers the submissions held (mode `hold`) that contain `match`, oldest first: 200 accepts them, any other status refuses them. */
  answer(status: number, match?: string): number;
  close(): Promise<void>;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let data = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (data.length < 1_000_000 ? (data += chunk) : req.destroy()));
    req.on("end", () => resolve(data));
    req.on("error", reject);
  });

const parse = (raw: string): unknown => {
  try { return JSON.parse(raw) as unknown; } catch { return raw; } // prettier-ignore
};

const send = (res: ServerResponse, status: number, body?: unknown) => {
  res.writeHead(status, body === undefined ? {} : { "Content-Type": "application/json" });
  res.end(body === undefined ? undefined : JSON.stringify(body));
};

/** Starts the service on 127.0.0.1 (`port` 0, the default, picks a free port). */
export async function startFakeFormService(opts: { port?: number; host?: string; delayMs?: number } = {}): Promise<FakeFormService> {
  let mode: FakeMode = "ok";
  let delayMs = opts.delayMs ?? 2000;
  let bodies: { raw: string; parsed: unknown; accepted: boolean; headers: IncomingHttpHeaders }[] = [];
  // Modes scoped to submissions whose body contains a token, so concurrent tests don't collide.
  const scoped = new Map<string, FakeMode>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let held: { raw: string; answer: (status: number) => void }[] = [];
  const setMode = (m: FakeMode, delay?: number, match?: string) => {
    if (!FAKE_MODES.includes(m)) throw new Error(`unknown mode ${String(m)}`);
    if (match) scoped.set(match, m);
    else mode = m;
    if (delay !== undefined) delayMs = delay;
  };
  const received = (match?: string) => bodies.filter((b) => !match || b.raw.includes(match)).map((b) => b.parsed);
  const accepted = (match?: string) => bodies.filter((b) => b.accepted && (!match || b.raw.includes(match))).map((b) => b.parsed);
  const headers = (match?: string) => bodies.filter((b) => !match || b.raw.includes(match)).map((b) => b.headers);
  const clear = (match?: string) => {
    bodies = match ? bodies.filter((b) => !b.raw.includes(match)) : [];
    if (match) scoped.delete(match);
    else scoped.clear();
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const match = url.searchParams.get("match") ?? undefined;
    const handle = async () => {
      if (req.method === "POST" && url.pathname === "/submit") {
        const raw = await readBody(req);
        const body = { raw, parsed: parse(raw), accepted: false, headers: req.headers };
        bodies.push(body);
        const m = [...scoped].find(([token]) => raw.includes(token))?.[1] ?? mode;
        if (m === "refuse") return void req.socket.destroy();
        if (m === "hang") return; // keep the connection open and never answer
        if (m === "fail500") return send(res, 500, { success: false, message: "Internal Server Error" });
        if (m === "successFalse") return send(res, 200, { success: false, message: "Invalid access key" });
        if (m === "successFalseString") return send(res, 200, { success: "false" });
        if (m === "unauthorized") return send(res, 401, { success: false, message: "Invalid access key" });
        if (m === "html200") return void res.writeHead(200, { "Content-Type": "text/html" }).end("<html><body>Please sign in to the Wi-Fi</body></html>");
        // Accepted only if the answer reaches a sender still waiting for it (or paused: its socket is open).
        const ok = () => {
          if (req.socket.destroyed) return;
          body.accepted = true;
          send(res, 200, { success: true, message: "Email sent successfully!" });
        };
        if (m === "hold") return void held.push({ raw, answer: (status) => (status === 200 ? ok() : send(res, status, { success: false })) });
        if (m === "slow") {
          const t = setTimeout(() => {
            timers.delete(t);
            ok();
          }, delayMs);
          return void timers.add(t);
        }
        return ok();
      }
      if (req.method === "POST" && url.pathname === "/__mode") {
        const body = parse(await readBody(req)) as { mode?: FakeMode; delayMs?: number } | null;
        if (!body?.mode || !FAKE_MODES.includes(body.mode)) return send(res, 400, { error: "unknown mode" });
        setMode(body.mode, typeof body.delayMs === "number" ? body.delayMs : undefined, match);
        return send(res, 200, { mode: body.mode, delayMs });
      }
      if (req.method === "GET" && url.pathname === "/__received") return send(res, 200, received(match));
      if (req.method === "GET" && url.pathname === "/__accepted") return send(res, 200, accepted(match));
      if (req.method === "POST" && url.pathname === "/__clear") {
        clear(match);
        return send(res, 204);
      }
      send(res, 404, { error: "not found" });
    };
    handle().catch(() => res.destroy());
  });

  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://${opts.host ?? "127.0.0.1"}:${port}`;
  return {
    url: base,
    submitUrl: `${base}/submit`,
    port,
    received,
    accepted,
    headers,
    clear,
    setMode,
    answer(status, match = "") {
      const answered = held.filter((h) => h.raw.includes(match));
      held = held.filter((h) => !answered.includes(h));
      for (const h of answered) h.answer(status);
      return answered.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        timers.forEach(clearTimeout);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Drives a running fake service from another process (e.g. a Playwright test) over HTTP. */
export function fakeFormClient(url: string, match?: string) {
  const q = match ? `?match=${encodeURIComponent(match)}` : "";
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}${q}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`fake form service: ${method} ${path} -> ${res.status}`);
    return res.status === 204 ? undefined : ((await res.json()) as unknown);
  };
  return {
    setMode: async (mode: FakeMode, delayMs?: number) => void (await call("POST", "/__mode", { mode, delayMs })),
    received: async () => (await call("GET", "/__received")) as unknown[],
    accepted: async () => (await call("GET", "/__accepted")) as unknown[],
    clear: async () => void (await call("POST", "/__clear")),
  };
}
