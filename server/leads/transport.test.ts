import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeFormService, startFakeFormService } from "../../tests/support/fake-form-service";
import { appendLine, createTransport, type TransportConfig } from "./transport";
import type { StoredLead } from "./types";

const lead: StoredLead = {
  id: "20261122-AAAA0000",
  acceptedAt: 0,
  kind: "contact",
  subject: "New contact form message from Ada",
  fromName: "Ada",
  replyTo: "ada@example.com",
  text: "Name: Ada\nMessage: Hi",
};
let service: FakeFormService;
let config: TransportConfig;
/** Another service, answering each request with `reply`. */
let reply: (res: ServerResponse) => void;
let other = "";
const answer = (status: number, body: string) => (reply = (res) => res.writeHead(status, { "Content-Type": "application/json" }).end(body));

beforeAll(async () => {
  service = await startFakeFormService({ delayMs: 50 });
  const [inbox, zoho] = ["hello@agency.example", undefined];
  config = { provider: "web3forms", endpoint: service.submitUrl, accessKey: "k-123", inbox, outboxFile: "unused", timeoutMs: 5_000, zoho };
  const server = createServer((req, res) => req.resume().on("end", () => reply(res)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  other = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return async () => (server.closeAllConnections(), server.close(), await service.close());
});
beforeEach(() => {
  service.setMode("ok");
  service.clear();
});
/** A deadline short enough to wait for in a test; only for answers that never come in time. */
const SHORT = 400;
const ok = { ok: true, status: 200 };
/** An attempt's claim lasts FORM_TIMEOUT_MS + 5 s (lead-inbox.ts): one cut at its deadline ends within it, or another process sends the lead too. */
const WITHIN_CLAIM = SHORT + 5_000;
const outbox = async (extra: Partial<TransportConfig> = {}) =>
  createTransport({
    ...config,
    provider: "outbox",
    accessKey: undefined,
    outboxFile: join(await mkdtemp(join(tmpdir(), "outbox-")), "nested", "outbox.jsonl"),
    ...extra,
  });

describe("what a service's answer means", () => {
  it("Web3Forms (the default) gets its payload with the reference line, and only {success: true} is delivered", async () => {
    expect(await createTransport(config).deliver(lead)).toEqual({ ok: true, status: 200 });
    const message = `${lead.text}\n\nReference: ${lead.id}`;
    expect(service.received()).toEqual([
      { access_key: "k-123", subject: lead.subject, to: "hello@agency.example", from_name: "Ada", replyto: "ada@example.com", message },
    ]);
  });

  it.each([
    ["fail500", { ok: false, retry: true, reason: "http", status: 500 }],
    ["successFalse", { ok: false, retry: true, reason: "rejected", status: 200 }],
    ["successFalseString", { ok: false, retry: true, reason: "rejected", status: 200 }],
    ["html200", { ok: false, retry: true, reason: "rejected", status: 200 }],
    ["unauthorized", { ok: false, retry: false, reason: "http", status: 401 }],
    ["hang", { ok: false, retry: true, reason: "timeout" }],
    ["refuse", { ok: false, retry: true, reason: "network", cause: "ECONNRESET" }],
    ["slow", { ok: true, status: 200 }],
  ] as const)("%s → %j", async (mode, outcome) => {
    service.setMode(mode);
    const started = Date.now();
    expect(await createTransport({ ...config, timeoutMs: mode === "hang" ? SHORT : config.timeoutMs }).deliver(lead)).toEqual(outcome);
    if (mode === "hang") expect(Date.now() - started, "cut at the deadline, within its claim").toBeLessThan(WITHIN_CLAIM);
  });

  it("HTTP 401, 403, 404 and 422 are not retried; 408, 429 and 502 are", async () => {
    for (const [status, retry] of Object.entries({ 401: false, 403: false, 404: false, 422: false, 408: true, 429: true, 502: true })) {
      answer(Number(status), "{}");
      expect(await createTransport({ ...config, endpoint: other }).deliver(lead), status).toMatchObject({ ok: false, retry, status: Number(status) });
    }
  });

  it("Formspree needs a 2xx with ok: true, and no key; a webhook needs a 2xx, and gets the key as a Bearer token and the lead's reference as its Idempotency-Key, the same on a second send", async () => {
    const formspree = createTransport({ ...config, provider: "formspree", accessKey: undefined, endpoint: other });
    answer(200, JSON.stringify({ ok: true, next: "/thanks" }));
    expect(await formspree.deliver(lead)).toEqual({ ok: true, status: 200 });
    answer(200, JSON.stringify({ next: "/thanks" }));
    expect(await formspree.deliver(lead)).toMatchObject({ ok: false, retry: true, reason: "rejected" });
    const webhook = createTransport({ ...config, provider: "webhook" });
    service.setMode("html200"); // any 2xx
    expect([await webhook.deliver(lead), await webhook.deliver(lead)]).toEqual([ok, ok]);
    expect(service.headers().map((h) => `${h.authorization} ${h["idempotency-key"]}`)).toEqual([`Bearer k-123 ${lead.id}`, `Bearer k-123 ${lead.id}`]);
  });

  it("a header or address Node refuses (a key with a line break, a domain with a space) rejects at once: the queue counts a failed attempt", async () => {
    await expect(createTransport({ ...config, provider: "webhook", accessKey: "k\n1" }).deliver(lead)).rejects.toMatchObject({ code: "ERR_INVALID_CHAR" });
    await expect(createTransport({ ...config, endpoint: "http://a b/" }).deliver(lead)).rejects.toMatchObject({ code: "ERR_INVALID_URL" });
  });

  it("an answer past 256 KiB is read to its end but kept only in part: not the service's answer", async () => {
    answer(200, JSON.stringify({ success: true, padding: "x".repeat(300 * 1024) }));
    expect(await createTransport({ ...config, endpoint: other }).deliver(lead)).toEqual({ ok: false, retry: true, reason: "rejected", status: 200 });
    answer(200, JSON.stringify({ success: true, padding: "x".repeat(200 * 1024) }));
    expect(await createTransport({ ...config, endpoint: other }).deliver(lead)).toEqual({ ok: true, status: 200 });
  });

  it("a body that drips slower than the deadline is a timeout, and the socket is let go", async () => {
    reply = (res) => {
      res.writeHead(200, { "Content-Type": "application/json" }).write("{");
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(" ")), 100);
    };
    const started = Date.now();
    expect(await createTransport({ ...config, endpoint: other, timeoutMs: SHORT }).deliver(lead)).toEqual({ ok: false, retry: true, reason: "timeout" });
    expect(Date.now() - started, "cut at the deadline, however the body drips, within its claim").toBeLessThan(WITHIN_CLAIM);
  });
});

describe("the visit's source in what the agency receives", () => {
  const spring = { ...lead, id: "20261122-SPRING00", source: { kind: "campaign", source: "newsletter", medium: "email", campaign: "spring" } } as const;
  const sent = async (provider: TransportConfig["provider"], which: StoredLead) => {
    service.clear();
    await createTransport({ ...config, provider }).deliver(which);
    return service.received()[0] as Record<string, unknown>;
  };

  it("every form service's message names it in words, on a line before the reference; a lead stored before sources has no such line", async () => {
    const line = `${lead.text}\n\nCame from: newsletter, email, spring\n\nReference: ${spring.id}`;
    for (const provider of ["web3forms", "formspree", "webhook"] as const) expect((await sent(provider, spring)).message, provider).toBe(line);
    expect((await sent("web3forms", { ...spring, source: { kind: "link" } })).message).toContain("\n\nCame from: a link on another site\n\nReference:");
    expect((await sent("web3forms", { ...spring, source: { kind: "direct" } })).message).toContain("\n\nCame directly\n\nReference:");
    expect((await sent("web3forms", lead)).message).toBe(`${lead.text}\n\nReference: ${lead.id}`);
  });

  it("the webhook's JSON carries it as parts too, null for a lead stored before sources; the outbox's line as the webhook's", async () => {
    const parts = {
      kind: "campaign",
      utm_source: "newsletter",
      utm_medium: "email",
      utm_campaign: "spring",
      utm_content: "",
      utm_term: "",
      referrer: "",
      text: "newsletter, email, spring",
    };
    expect((await sent("webhook", spring)).source).toEqual(parts);
    const site = (await sent("webhook", { ...spring, source: { kind: "site", host: "example.co.za" } })).source;
    expect(site).toMatchObject({ kind: "site", referrer: "example.co.za", text: "a link on example.co.za" });
    expect((await sent("webhook", lead)).source).toBeNull();
    expect(await sent("web3forms", spring)).not.toHaveProperty("source");
    const file = join(await mkdtemp(join(tmpdir(), "outbox-")), "outbox.jsonl");
    await (await outbox({ outboxFile: file })).deliver(spring);
    expect(JSON.parse(await readFile(file, "utf8"))).toMatchObject({
      message: `${lead.text}\n\nCame from: newsletter, email, spring\n\nReference: ${spring.id}`,
      source: parts,
    });
  });
});

describe("a process that could not run past the deadline", () => {
  // The service runs in a thread of its own, so it answers while this thread is blocked (as a
  // process paused with SIGSTOP, or frozen by a long GC, would be).
  const SERVICE = `
    const { createServer } = require("node:http");
    const { parentPort } = require("node:worker_threads");
    const server = createServer((req, res) => req.resume().on("end", () => {
      parentPort.postMessage("received");
      setTimeout(() => res.writeHead(200, { "Content-Type": "application/json" }).end('{"success":true}'), 50);
    }));
    server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));`;

  /** Sends with `send` to the service in its thread, blocked from the moment it has the lead until well past the deadline. */
  async function blockedWhileAnswered<T>(send: (url: string) => Promise<T>): Promise<T> {
    const thread = new Worker(SERVICE, { eval: true });
    try {
      const port = await new Promise<number>((resolve) => thread.once("message", resolve));
      thread.once("message", () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, SHORT * 3));
      return await send(`http://127.0.0.1:${port}/submit`);
    } finally {
      await thread.terminate();
    }
  }

  it("counts an answer that arrived while it was blocked, though its deadline passed meanwhile", async () => {
    expect(await blockedWhileAnswered((url) => createTransport({ ...config, endpoint: url, timeoutMs: SHORT }).deliver(lead))).toEqual(ok);
  });

  // The experiment behind post()'s comment in send.ts: when one of these fails, Node's fetch may do.
  it("Node's fetch with AbortSignal.timeout throws that answer away", async () => {
    const sent = blockedWhileAnswered((url) => fetch(url, { method: "POST", body: "{}", signal: AbortSignal.timeout(SHORT) }).then((res) => res.text()));
    await expect(sent).rejects.toMatchObject({ name: "TimeoutError" });
  });
});

describe("Node's fetch in post()'s place (the measured reason send.ts keeps node:http)", () => {
  it("a webhook on a port the Fetch standard bars (10080, 6000, 5060 …) is delivered; fetch refuses to send", async () => {
    for (const port of [10080, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697]) {
      const server = createServer((req, res) => req.resume().on("end", () => res.end()));
      if (!(await new Promise<boolean>((resolve) => server.once("error", () => resolve(false)).listen(port, "127.0.0.1", () => resolve(true))))) continue;
      try {
        const url = `http://127.0.0.1:${port}/hook`;
        expect(await createTransport({ ...config, provider: "webhook", endpoint: url }).deliver(lead)).toEqual({ ok: true, status: 200 });
        return await expect(fetch(url, { method: "POST", body: "{}" })).rejects.toMatchObject({ cause: { message: "bad port" } });
      } finally {
        server.closeAllConnections();
        server.close();
      }
    }
    throw new Error("every barred port is taken");
  });

  it("a service that hangs up unanswered is ECONNRESET in lead_delivery_failed; fetch calls it UND_ERR_SOCKET", async () => {
    service.setMode("refuse");
    expect(await createTransport(config).deliver(lead)).toMatchObject({ reason: "network", cause: "ECONNRESET" });
    await expect(fetch(service.submitUrl, { method: "POST", body: "{}" })).rejects.toMatchObject({ cause: { code: "UND_ERR_SOCKET" } });
  });
});

describe("the outbox (no form service)", () => {
  it("appends one JSON line per lead, whole, even when many come at once", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "outbox-")), "nested", "outbox.jsonl");
    const box = await outbox({ outboxFile: file });
    expect(box.name).toBe("outbox");
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => box.deliver({ ...lead, id: `L${i}` })));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const lines = (await readFile(file, "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(lines.map((l) => l.id).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `L${i}`).sort());
    expect(lines[0]).toMatchObject({ subject: lead.subject, to: "hello@agency.example", from_name: "Ada", reply_to: "ada@example.com" });
    expect(lines[0]!.message).toMatch(/\n\nReference: L\d+$/);
  });

  it("a torn last line (a crash) is ended first, so a new line never lands on it; the file is 0600", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "outbox-")), "outbox.jsonl");
    await writeFile(file, '{"id":"A"}\n{"id":"TO', { mode: 0o600 });
    await appendLine(file, '{"id":"B"}\n');
    expect((await readFile(file, "utf8")).split("\n")).toEqual(['{"id":"A"}', '{"id":"TO', '{"id":"B"}', ""]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("a line that does not fit (a full tmpfs) is cut back off: the file holds whole lines only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outbox-full-"));
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]);
    } catch {
      return void rmSync(dir, { recursive: true }); // needs root to mount; store.test.ts says so too
    }
    try {
      const file = join(dir, "outbox.jsonl");
      await appendLine(file, '{"id":"A"}\n');
      await expect(appendLine(file, `${JSON.stringify({ id: "B", pad: "x".repeat(200_000) })}\n`)).rejects.toMatchObject({ code: "ENOSPC" });
      expect(await readFile(file, "utf8")).toBe('{"id":"A"}\n');
    } finally {
      execFileSync("umount", [dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a write that fails is a failure to retry", async () => {
    const box = await outbox({ outboxFile: "/dev/null/outbox.jsonl" });
    expect(await box.deliver(lead)).toMatchObject({ ok: false, retry: true, reason: "outbox", cause: expect.stringMatching(/^E[A-Z]+$/) });
  });
});
