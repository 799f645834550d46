import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { Lead as OutgoingMessage } from "~/context";
import { createRelay, type RelayConfig } from "./relay.server";

const KEY = "sk-test-5f1e2d3c";
const msg: OutgoingMessage = {
  kind: "calculator",
  subject: "New cost estimate request from Acme Ltd",
  fromName: "Acme Ltd",
  replyTo: "ada@acme.example",
  text: "Service: SEO & Digital Marketing\nDescription: secret project plans",
};
const cfg: RelayConfig = {
  provider: "web3forms",
  endpoint: "https://forms.example/submit",
  accessKey: KEY,
  inbox: "hello@agency.example",
  outboxFile: "/nonexistent/should-not-be-used.jsonl",
  timeoutMs: 1000,
};

interface Call {
  url: string;
  init: RequestInit;
}

/** A fake fetch answering with `respond`, recording each call. */
function fakeFetch(respond: (call: Call) => Promise<Response> | Response) {
  const calls: Call[] = [];
  const fn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const call = { url: String(input), init: init ?? {} };
    calls.push(call);
    return respond(call);
  }) as typeof fetch;
  return { fn, calls };
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function setup(respond: (call: Call) => Promise<Response> | Response, overrides: Partial<RelayConfig> = {}) {
  const events: Record<string, unknown>[] = [];
  const f = fakeFetch(respond);
  const relay = createRelay({ ...cfg, ...overrides }, { fetch: f.fn, log: (e) => events.push(e) });
  return { relay, events, calls: f.calls };
}

const bodyOf = (call: Call | undefined) => JSON.parse(String(call?.init.body)) as Record<string, unknown>;

describe("delivery through a provider", () => {
  it("ok: resolves ok via provider and logs one event with status and duration", async () => {
    const times = [1000, 1042];
    const events: Record<string, unknown>[] = [];
    const relay = createRelay(cfg, {
      fetch: fakeFetch(() => json({ success: true })).fn,
      log: (e) => events.push(e),
      now: () => times.shift() ?? 0,
    });
    expect(await relay.deliver(msg)).toEqual({ ok: true, via: "provider" });
    expect(events).toEqual([{ event: "delivery", provider: "web3forms", ok: true, status: 200, durationMs: 42 }]);
  });

  it("500: fails with reason http", async () => {
    const { relay, events } = setup(() => json({ success: false, message: "boom" }, 500));
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "http" });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: "delivery", ok: false, provider: "web3forms", status: 500, reason: "http" });
  });

  it("200 with success:false: fails with reason rejected", async () => {
    const { relay, events } = setup(() => json({ success: false, message: "Invalid access key" }));
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "rejected" });
    expect(events).toEqual([expect.objectContaining({ ok: false, status: 200, reason: "rejected" })]);
  });

  it("a non-JSON 200 body still counts as success", async () => {
    const { relay } = setup(() => new Response("<html>thanks</html>", { status: 200 }));
    expect(await relay.deliver(msg)).toEqual({ ok: true, via: "provider" });
  });

  it("fetch throws: fails with reason network and logs a safe cause", async () => {
    const { relay, events } = setup(() => {
      throw new TypeError("fetch failed", { cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) });
    });
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "network" });
    expect(events).toEqual([expect.objectContaining({ ok: false, reason: "network", cause: "ECONNREFUSED" })]);
    expect(events[0]).not.toHaveProperty("status");
  });

  it("timeout: a fetch that never answers but honours the abort signal", async () => {
    let aborted = false;
    const { relay, events } = setup(
      ({ init }) =>
        new Promise<Response>((_resolve, reject) => {
          init.signal?.addEventListener("abort", () => {
            aborted = true;
            reject(new DOMException("This operation was aborted", "AbortError"));
          });
        }),
      { timeoutMs: 50 },
    );
    const started = Date.now();
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "timeout" });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(aborted).toBe(true);
    expect(events).toEqual([expect.objectContaining({ ok: false, reason: "timeout" })]);
  });

  it("timeout: a fetch that ignores the abort signal still ends on time", async () => {
    const { relay, events } = setup(() => new Promise<Response>(() => {}), { timeoutMs: 50 });
    const started = Date.now();
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "timeout" });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(events).toHaveLength(1);
  });

  it("timeout: headers arrive but the body stalls", async () => {
    const stalled = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(new TextEncoder().encode("{")) });
    const { relay } = setup(() => new Response(stalled, { status: 200 }), { timeoutMs: 50 });
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "timeout" });
  });

  it("web3forms: posts exactly the SPEC payload as JSON; the key and text never reach the log", async () => {
    const { relay, events, calls } = setup(() => json({ success: true }));
    await relay.deliver(msg);
    await relay.deliver(msg);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.url).toBe("https://forms.example/submit");
    expect(calls[0]?.init.method).toBe("POST");
    expect(new Headers(calls[0]?.init.headers).get("content-type")).toBe("application/json");
    expect(bodyOf(calls[0])).toEqual({
      access_key: KEY,
      subject: "New cost estimate request from Acme Ltd",
      to: "hello@agency.example",
      from_name: "Acme Ltd",
      message: msg.text,
      replyto: "ada@acme.example",
    });
    expect(events).toHaveLength(2);
    const logged = JSON.stringify(events);
    expect(logged).not.toContain(KEY);
    expect(logged).not.toContain("secret project plans");
  });

  it("formspree: its own field names; success means ok and no errors", async () => {
    const answers = [json({ ok: true }), json({ errors: [{ message: "bad email" }] }), json({ errors: [] }), json({}, 422)];
    const { relay, calls, events } = setup(() => answers.shift() ?? json({}, 500), {
      provider: "formspree",
      endpoint: "https://formspree.io/f/abc123",
    });
    expect(await relay.deliver(msg)).toEqual({ ok: true, via: "provider" });
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "rejected" });
    expect(await relay.deliver(msg)).toEqual({ ok: true, via: "provider" });
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "http" });
    expect(calls[0]?.url).toBe("https://formspree.io/f/abc123");
    expect(new Headers(calls[0]?.init.headers).get("accept")).toBe("application/json");
    expect(bodyOf(calls[0])).toEqual({ email: msg.replyTo, _subject: msg.subject, message: msg.text, name: msg.fromName });
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it("webhook: bearer key and a generic payload; success means ok", async () => {
    const answers = [json({ success: false }), new Response("", { status: 503 })];
    const { relay, calls, events } = setup(() => answers.shift() ?? json({}, 500), { provider: "webhook" });
    expect(await relay.deliver(msg)).toEqual({ ok: true, via: "provider" });
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "http" });
    expect(new Headers(calls[0]?.init.headers).get("authorization")).toBe(`Bearer ${KEY}`);
    expect(bodyOf(calls[0])).toEqual({
      subject: msg.subject,
      from_name: msg.fromName,
      reply_to: msg.replyTo,
      message: msg.text,
    });
    expect(events.map((e) => e.provider)).toEqual(["webhook", "webhook"]);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it("never throws, even when the logger does", async () => {
    const relay = createRelay(cfg, {
      fetch: (() => Promise.reject(new Error("down"))) as typeof fetch,
      log: () => {
        throw new Error("logger broken");
      },
    });
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "network" });
  });
});

describe("delivery to the outbox (no key)", () => {
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "relay-test-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("appends one JSON line per message, creating the directory, and never calls fetch", async () => {
    const file = join(dir, "nested", "data", "outbox.jsonl");
    const events: Record<string, unknown>[] = [];
    let fetched = 0;
    const relay = createRelay(
      { ...cfg, accessKey: undefined, outboxFile: file },
      {
        fetch: (() => {
          fetched++;
          return Promise.resolve(json({}));
        }) as typeof fetch,
        log: (e) => events.push(e),
        now: () => Date.UTC(2026, 0, 2, 3, 4, 5),
      },
    );
    expect(await relay.deliver(msg)).toEqual({ ok: true, via: "outbox" });
    expect(await relay.deliver({ ...msg, subject: "Second" })).toEqual({ ok: true, via: "outbox" });
    const lines = (await readFile(file, "utf8")).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe("");
    expect(JSON.parse(lines[0] ?? "")).toEqual({
      at: "2026-01-02T03:04:05.000Z",
      subject: msg.subject,
      to: "hello@agency.example",
      from_name: "Acme Ltd",
      reply_to: "ada@acme.example",
      message: msg.text,
    });
    expect((JSON.parse(lines[1] ?? "") as { subject: string }).subject).toBe("Second");
    expect(fetched).toBe(0);
    expect(events).toEqual([
      { event: "delivery", ok: true, via: "outbox", file },
      { event: "delivery", ok: true, via: "outbox", file },
    ]);
  });

  it("a blank key also means outbox; concurrent messages never interleave", async () => {
    const file = join(dir, "outbox.jsonl");
    const relay = createRelay({ ...cfg, accessKey: "  ", outboxFile: file }, { log: () => {} });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => relay.deliver({ ...msg, subject: `n${i}`, text: "x".repeat(20_000) })),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    const lines = (await readFile(file, "utf8")).trimEnd().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as { subject: string }).subject).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `n${i}`).sort(),
    );
  });

  it("a failed write resolves with reason outbox", async () => {
    const blocker = join(dir, "not-a-dir");
    await writeFile(blocker, "");
    const events: Record<string, unknown>[] = [];
    const relay = createRelay(
      { ...cfg, accessKey: undefined, outboxFile: join(blocker, "outbox.jsonl") },
      { log: (e) => events.push(e) },
    );
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "outbox" });
    expect(events).toEqual([expect.objectContaining({ ok: false, via: "outbox", reason: "outbox" })]);
  });
});
