/**
 * One address's share of leads (decision 0031). Its rules are the store's SQL, so they run on both
 * engines, at the store, on the test's own times: over its share a lead is held, not refused; held
 * leads are released fairly among addresses; an address's held leads are bounded. The queue's use
 * of them through a real server: tests/security.spec.ts and tests/ops/shared-address.spec.ts.
 */
import { describe, expect, it } from "vitest";
import { ENGINES, leadDatabases, type Engine } from "../../tests/support/engines";
import { addressCodes, clientKey } from "../rate-limits";
import { PER_ADDRESS } from "./schedule";
import { AddressFull, leadStore, prepareStore, type LeadStore } from "./store";
import type { Lead } from "./types";

const lead = (address: string, n: number | string): Lead => ({
  kind: "contact",
  subject: "New contact form message",
  fromName: "Website visitor",
  replyTo: "visitor@example.com",
  text: `${address}|${n}`,
});
const T = Date.parse("2026-11-26T08:00:00Z");
const MINUTE = 60_000;
const { place, open } = leadDatabases();

async function storeOf(engine: Engine) {
  const db = open(await place(engine));
  await prepareStore(db);
  return leadStore(db);
}
let n = 0;
/** Lead `i` from `address` (the same `i` again: the same form), stored at `now` under a ceiling of `perHour`. */
const add = (store: LeadStore, address: string, i: number | string, now: number, perHour = 60) =>
  store.insert(lead(address, i), { id: `L${++n}`, key: `${address}|${i}`, now, perHour, group: address });

describe.each(ENGINES)("one address's share of leads (%s)", (engine) => {
  it("a sixth lead from one address in ten minutes is stored and held, not refused, and goes out once the address has room; another address's goes at once", async () => {
    const store = await storeOf(engine);
    const office = [];
    for (let i = 0; i < 6; i++) office.push(await add(store, "office", i, T + i));
    expect(office.map((r) => r.heldFor ?? "-")).toEqual(["-", "-", "-", "-", "-", "address"]);
    expect((await add(store, "home", 0, T + 10)).held).toBe(false);
    expect(await store.releaseHeld(T + 2 * MINUTE, 60), "the office's five are within ten minutes").toBeUndefined();
    expect(await store.releaseHeld(T + PER_ADDRESS.windowMs + 1, 60)).toEqual({ id: office[5]!.id, kind: "contact" });
  });

  it("an address may have twenty leads held; the next is refused (AddressFull) and not stored, while other addresses are taken", async () => {
    const store = await storeOf(engine);
    for (let i = 0; i < PER_ADDRESS.letThrough + PER_ADDRESS.held; i++) await add(store, "flood", i, T + i);
    await expect(add(store, "flood", "one too many", T + 30)).rejects.toBeInstanceOf(AddressFull);
    // The same form again is still the same lead, with its reference, not a refusal.
    expect(await add(store, "flood", 7, T + 31)).toMatchObject({ duplicate: true });
    expect((await add(store, "visitor", 0, T + 32)).held).toBe(false);
    expect(await store.stats(T + 40)).toMatchObject({ held: PER_ADDRESS.held, pending: PER_ADDRESS.letThrough + 1 });
  });

  it("after 60 fake leads from 20 addresses, an honest lead from another address is released first, then one lead per address in turn", async () => {
    const store = await storeOf(engine);
    // A ceiling of 10 an hour: 10 fake leads go at once, the other 50 are held before the honest one arrives.
    for (let round = 0; round < 3; round++) for (let bot = 0; bot < 20; bot++) await add(store, `bot${bot}`, round, T + round * 20 + bot, 10);
    expect((await add(store, "honest", 0, T + 60, 10)).held).toBe(true);
    expect(await store.stats(T + 60)).toMatchObject({ held: 51 });
    // The hour passes; then the ceiling lets one lead go every six minutes (an hour / 10).
    const released = [];
    for (let i = 0; i < 11; i++) {
      const { id } = (await store.releaseHeld(T + 60 + 60 * MINUTE + i * 6 * MINUTE + 1, 10))!;
      released.push((await store.get(id))!.lead!.text.split("|")[0]);
    }
    expect(released[0]).toBe("honest");
    expect(new Set(released).size, `released in turn: ${released.join(", ")}`).toBe(11);
  });

  it("the code goes an hour after its lead was let through; a held lead keeps it while it waits", async () => {
    const store = await storeOf(engine);
    const [through, held] = [await add(store, "code-a", "let through", T), await add(store, "code-a", "held", T, 0)];
    const codes = async () => [(await store.get(through.id))?.group, (await store.get(held.id))?.group];
    await store.purge(T + 59 * MINUTE, 30 * 86_400_000);
    expect(await codes()).toEqual(["code-a", "code-a"]);
    await store.purge(T + 60 * MINUTE, 30 * 86_400_000);
    expect(await codes()).toEqual([null, "code-a"]);
  });
});

it("what the store keeps of an address is a keyed code, never the address: the same within one server, another under another key", () => {
  const [codeOf, another] = [addressCodes(), addressCodes()];
  expect(codeOf("ip:203.0.113.7")).toBe(codeOf("ip:203.0.113.7"));
  expect(codeOf("ip:203.0.113.7")).not.toBe(codeOf("ip:203.0.113.8"));
  expect(another("ip:203.0.113.7")).not.toBe(codeOf("ip:203.0.113.7"));
  expect(codeOf("ip:203.0.113.7")).not.toMatch(/203|113/);
  // An IPv6 household or server counts as its /64, as the post limit counts it.
  expect(codeOf(clientKey("2001:db8:1:2::9"))).toBe(codeOf(clientKey("2001:db8:1:2:ffff::1")));
});
