// The relay against real sockets (the e2e fake form service) through its default transport, node:http.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { calculatorLead as calculatorMessage } from "~/calculator/lead.server";
import { createRelay, type RelayConfig } from "./relay.server";
import { type FakeFormService, fakeFormClient, startFakeFormService } from "../../tests/support/fake-form-service";

let service: FakeFormService;
let cfg: RelayConfig;
const msg = calculatorMessage({
  service: "ai",
  timeframe: "standard",
  complexity: "medium",
  description: "Chatbot",
  companyName: "Acme",
  email: "ada@acme.example",
  phone: "0115551234",
});

beforeAll(async () => {
  service = await startFakeFormService({ delayMs: 50 });
  cfg = {
    provider: "web3forms",
    endpoint: service.submitUrl,
    accessKey: "k-123",
    inbox: "hello@agency.example",
    outboxFile: "unused",
    timeoutMs: 300,
  };
});
afterAll(() => service.close());
beforeEach(() => {
  service.setMode("ok");
  service.clear();
});

const deliver = () => createRelay(cfg, { log: () => {} }).deliver({ ...msg, replyTo: "ada@acme.example" });

describe("relay over HTTP", () => {
  it("ok: delivered, and the service received the web3forms payload", async () => {
    expect(await deliver()).toEqual({ ok: true, via: "provider" });
    expect(service.received()).toEqual([
      {
        access_key: "k-123",
        subject: "New cost estimate request from Acme",
        to: "hello@agency.example",
        from_name: "Acme",
        message: msg.text,
        replyto: "ada@acme.example",
      },
    ]);
  });

  it.each([
    ["fail500", { ok: false, reason: "http" }],
    ["successFalse", { ok: false, reason: "rejected" }],
    ["hang", { ok: false, reason: "timeout" }],
    ["refuse", { ok: false, reason: "network" }],
    ["slow", { ok: true, via: "provider" }],
  ] as const)("%s", async (mode, expected) => {
    service.setMode(mode);
    const started = Date.now();
    expect(await deliver()).toEqual(expected);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("a slower-than-timeout answer is a timeout", async () => {
    service.setMode("slow", 1000);
    expect(await deliver()).toEqual({ ok: false, reason: "timeout" });
  });

  it("a closed port is a network failure", async () => {
    const gone = await startFakeFormService();
    await gone.close();
    const relay = createRelay({ ...cfg, endpoint: gone.submitUrl }, { log: () => {} });
    expect(await relay.deliver(msg)).toEqual({ ok: false, reason: "network" });
  });

  it("can be driven over HTTP from another process", async () => {
    const client = fakeFormClient(service.url);
    await client.setMode("successFalse");
    expect(await deliver()).toEqual({ ok: false, reason: "rejected" });
    expect(await client.received()).toHaveLength(1);
    await client.clear();
    expect(await client.received()).toEqual([]);
    await expect(client.setMode("bogus" as "ok")).rejects.toThrow(/400/);
    await client.setMode("ok");
    expect(await deliver()).toEqual({ ok: true, via: "provider" });
  });
});
