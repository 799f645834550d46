/** A fake form service on loopback: `POST /submit`; what arrived holding a token, for a Playwright worker: `GET /__received?match=`. */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** html200: a captive portal's page; hang: never answers; slow: ok after `delayMs`; refuse: the connection cut; hold: answered by `answer()`. */
export type FakeMode = "ok" | "fail500" | "successFalse" | "successFalseString" | "html200" | "unauthorized" | "hang" | "slow" | "refuse" | "hold";
/** The modes that answer at once, with a status and a JSON body. */
const ANSWERS: Partial<Record<FakeMode, [number, unknown]>> = {
  fail500: [500, { success: false, message: "Internal Server Error" }],
  successFalse: [200, { success: false, message: "Invalid access key" }],
  successFalseString: [200, { success: "false" }],
  unauthorized: [401, { success: false, message: "Invalid access key" }],
};

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
export async function startFakeFormService(opts: { port?: number; delayMs?: number } = {}) {
  let mode: FakeMode = "ok";
  let delayMs = opts.delayMs ?? 2000;
  let bodies: { raw: string; parsed: unknown; accepted: boolean; headers: IncomingHttpHeaders }[] = [];
  // Modes scoped to submissions whose body contains a token, so concurrent tests don't collide.
  const scoped = new Map<string, FakeMode>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let held: { raw: string; answer: (status: number) => void }[] = [];
  const setMode = (m: FakeMode, delay?: number, match?: string) => {
    if (match) scoped.set(match, m);
    else mode = m;
    if (delay !== undefined) delayMs = delay;
  };
  // With `match`, only the submissions whose raw body contains it.
  const matching = (match?: string) => bodies.filter((b) => !match || b.raw.includes(match));
  /** Every JSON body received on /submit, parsed (others as raw strings), oldest first. */
  const received = (match?: string) => matching(match).map((b) => b.parsed);
  /** The same, only those this service answered as accepted (delivered). */
  const accepted = (match?: string) => matching(match).flatMap((b) => (b.accepted ? [b.parsed] : []));
  const clear = () => {
    bodies = [];
    scoped.clear();
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
        if (ANSWERS[m]) return send(res, ...ANSWERS[m]);
        if (m === "html200") return void res.writeHead(200, { "Content-Type": "text/html" }).end("<html><body>Please sign in to the Wi-Fi</body></html>");
        // Accepted only if the answer reaches a sender still waiting for it (or paused: its socket is open).
        const ok = () => {
          if (req.socket.destroyed) return;
          body.accepted = true;
          send(res, 200, { success: true, message: "Email sent successfully!" });
        };
        if (m === "hold") return void held.push({ raw, answer: (status) => (status === 200 ? ok() : send(res, status, { success: false })) });
        if (m !== "slow") return ok();
        const timer = setTimeout(() => (timers.delete(timer), ok()), delayMs);
        return void timers.add(timer);
      }
      if (req.method === "GET" && url.pathname === "/__received") return send(res, 200, received(match));
      send(res, 404, { error: "not found" });
    };
    handle().catch(() => res.destroy());
  });

  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** Where the app should post. */
    submitUrl: `http://127.0.0.1:${port}/submit`,
    received,
    accepted,
    /** The request headers of each submission `received(match)` lists, in the same order. */
    headers: (match?: string) => matching(match).map((b) => b.headers),
    clear,
    /** With `match`, the mode applies only to submissions whose raw body contains it. */
    setMode,
    /** Answers the submissions held (mode `hold`) that contain `match`, oldest first: 200 accepts them, any other status refuses them. */
    answer(status: number, match = "") {
      const answered = held.filter((h) => h.raw.includes(match));
      held = held.filter((h) => !answered.includes(h));
      for (const h of answered) h.answer(status);
      return answered.length;
    },
    close: (): Promise<void> =>
      new Promise<void>((resolve) => {
        timers.forEach(clearTimeout);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export type FakeFormService = Awaited<ReturnType<typeof startFakeFormService>>;

/** What a running fake service received holding `match`, asked from another process (a Playwright test) over HTTP. */
export function fakeFormClient(url: string, match: string) {
  return {
    async received() {
      const res = await fetch(`${url}/__received?match=${encodeURIComponent(match)}`);
      if (!res.ok) throw new Error(`fake form service: GET /__received -> ${res.status}`);
      return (await res.json()) as unknown[];
    },
  };
}
