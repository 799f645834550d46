/**
 * One address's share of leads (decision 0031), on both engines: a real SQLite file and a real
 * PostgreSQL (tests/support/postgres.ts). Over its share a lead is held, not refused; held leads
 * are released fairly among addresses; an address's held leads are bounded. The clock is the
 * test's, so an hour passes at once.
 */
import { describe, expect, it, type TestContext } from "vitest";
import { ENGINES, reports, leadDatabases, type Engine } from "../../tests/support/engines";
import { quietLog, until } from "../../tests/support/quiet-log";
import { addressCodes } from "../rate-limits";
import { clientKey } from "../rate-limits";
import { systemClock } from "./clock";
import { createLeadQueue } from "./queue";
import { PER_ADDRESS } from "./schedule";
import { AddressFull, leadStore, prepareStore } from "./store";
import type { Lead, Transport } from "./types";

const lead = (address: string, n: number | string): Lead => ({
  kind: "contact",
  subject: "New contact form message",
  fromName: "Website visitor",
  replyTo: "visitor@example.com",
  text: `${address}|${n}`,
});

/** The address each delivered lead came from, in the order they reached the service. */
function service() {
  const delivered: string[] = [];
  const transport: Transport = {
    name: "fake",
    async deliver(l) {
      delivered.push(l.text.split("|")[0]!);
      return { ok: true };
    },
  };
  return { transport, delivered };
}

const MINUTE = 60_000;
const idOf = (accepted: { id: string }) => accepted.id;
const { place, open } = leadDatabases();

async function queueOf(engine: Engine, t: TestContext, transport: Transport, clock: { now: number }, perHour = 60) {
  const queue = createLeadQueue({
    db: open(await place(engine), t),
    transport,
    log: quietLog,
    retentionMs: 30 * 86_400_000,
    perHour,
    leaseMs: 40_000,
    clock: { ...systemClock, now: () => clock.now },
    pollMs: 30,
    backoff: () => 30,
  });
  t.onTestFinished(() => queue.close());
  await queue.start();
  return queue;
}

describe.concurrent.each(ENGINES)("one address's share of leads (%s)", (engine) => {
  it("a sixth lead from one address in ten minutes is stored and held, not refused, and goes out once the address has room", async (t) => {
    const clock = { now: Date.parse("2026-11-26T08:00:00Z") };
    const { transport, delivered } = service();
    const queue = await queueOf(engine, t, transport, clock);
    for (let i = 0; i < 6; i++) expect(idOf(await queue.accept(lead("office", i), { group: "office" }))).toMatch(/^\d{8}-/);
    await until(() => delivered.length === 5);
    await reports(queue, { held: 1 });
    // Someone else behind another address is not held for the office's sake.
    await queue.accept(lead("home", 0), { group: "home" });
    await until(() => delivered.includes("home"));
    expect(delivered.filter((a) => a === "office")).toHaveLength(5);
    clock.now += PER_ADDRESS.windowMs + 1;
    await until(() => delivered.filter((a) => a === "office").length === 6);
    await reports(queue, { held: 0 });
  });

  it("an address may have twenty leads held; the next is refused (AddressFull) and not stored, while other addresses are taken", async (t) => {
    const clock = { now: Date.parse("2026-11-26T08:00:00Z") };
    const { transport, delivered } = service();
    const queue = await queueOf(engine, t, transport, clock);
    for (let i = 0; i < PER_ADDRESS.letThrough + PER_ADDRESS.held; i++) await queue.accept(lead("flood", i), { group: "flood" });
    await expect(queue.accept(lead("flood", "one too many"), { group: "flood" })).rejects.toBeInstanceOf(AddressFull);
    // The same form again is still the same lead, with its reference, not a refusal.
    expect(idOf(await queue.accept(lead("flood", 7), { group: "flood" }))).toMatch(/^\d{8}-/);
    await queue.accept(lead("visitor", 0), { group: "visitor" });
    await until(() => delivered.includes("visitor"));
    await reports(queue, { held: PER_ADDRESS.held });
  });

  it("after 60 fake leads from 20 addresses, an honest lead from another address is released first, then one lead per address in turn", async (t) => {
    const clock = { now: Date.parse("2026-11-26T08:00:00Z") };
    const { transport, delivered } = service();
    // A ceiling of 10 an hour: 10 fake leads go at once, the other 50 are held before the honest one arrives.
    const queue = await queueOf(engine, t, transport, clock, 10);
    const flood = Array.from({ length: 20 }, (_, i) => `bot${i}`);
    for (let round = 0; round < 3; round++) for (const address of flood) await queue.accept(lead(address, round), { group: address });
    await queue.accept(lead("honest", 0), { group: "honest" });
    await until(() => delivered.length === 10);
    await reports(queue, { held: 51 });
    // The hour passes; then the ceiling lets one lead go every six minutes (an hour / 10).
    clock.now += 60 * MINUTE + 1;
    for (let released = 1; released <= 11; released++) {
      await until(() => delivered.length === 10 + released);
      clock.now += 6 * MINUTE + 1;
    }
    const released = delivered.slice(10);
    expect(released[0]).toBe("honest");
    expect(new Set(released).size, `released in turn: ${released.join(", ")}`).toBe(11);
  });
});

describe("what the store keeps of an address", () => {
  it("a keyed code, never the address: the same within one server, another under another key", () => {
    const [codeOf, another] = [addressCodes(), addressCodes()];
    expect(codeOf("ip:203.0.113.7")).toBe(codeOf("ip:203.0.113.7"));
    expect(codeOf("ip:203.0.113.7")).not.toBe(codeOf("ip:203.0.113.8"));
    expect(another("ip:203.0.113.7")).not.toBe(codeOf("ip:203.0.113.7"));
    expect(codeOf("ip:203.0.113.7")).not.toMatch(/203|113/);
    // An IPv6 household or server counts as its /64, as the post limit counts it.
    expect(codeOf(clientKey("2001:db8:1:2::9"))).toBe(codeOf(clientKey("2001:db8:1:2:ffff::1")));
  });

  it.each(ENGINES)("the code goes an hour after its lead was let through; a held lead keeps it while it waits (%s)", async (engine) => {
    const where = await place(engine);
    const db = open(where);
    await prepareStore(db);
    const store = leadStore(db);
    const t0 = Date.parse("2026-11-26T08:00:00Z");
    const insert = (text: string, perHour: number) => store.insert(lead("a", text), { id: text, key: text, now: t0, perHour, group: "code-a" });
    await insert("let-through", 60);
    await insert("held", 0);
    // Read as the operator would, on a connection of its own.
    const reader = open(where);
    const codes = async () => Object.fromEntries((await reader.all("SELECT id, client_group FROM leads")).map((r) => [r.id, r.client_group]));
    await store.purge(t0 + 59 * MINUTE, 30 * 86_400_000);
    expect(await codes()).toEqual({ "let-through": "code-a", held: "code-a" });
    await store.purge(t0 + 60 * MINUTE, 30 * 86_400_000);
    expect(await codes()).toEqual({ "let-through": null, held: "code-a" });
  });
});
