import { describe, expect, it } from "vitest";
import { ENGINES, leadDatabases } from "../tests/support/engines";
import { linkKey, linkValid, signLink } from "./funnel-link";
import { prepareStore } from "./leads/store";

const NOW = Date.parse("2026-12-08T10:00:00Z");
const DAY = 86_400_000;
const key = Buffer.alloc(32, 7);

describe("a funnel link's token", () => {
  it("opens until its expiry, then never; a changed expiry or MAC, another key, or a malformed token does not", () => {
    const token = signLink(key, NOW + 7 * DAY);
    expect(token).toMatch(/^\d+\.[\w-]{43}$/);
    expect([NOW, NOW + 7 * DAY - 1_000].map((now) => linkValid(key, token, now))).toEqual([true, true]);
    expect(
      [NOW + 7 * DAY, NOW + 8 * DAY].map((now) => linkValid(key, token, now)),
      "expired",
    ).toEqual([false, false]);

    const [expires, mac] = token.split(".") as [string, string];
    const flipped = `${mac.slice(0, 10)}${mac[10] === "A" ? "B" : "A"}${mac.slice(11)}`;
    const forged = [`${Number(expires) + 86_400}.${mac}`, `${expires}.${flipped}`, `${expires}.${"A".repeat(43)}`];
    expect(
      forged.map((t) => linkValid(key, t, NOW)),
      "forged",
    ).toEqual([false, false, false]);
    expect(linkValid(Buffer.alloc(32, 8), token, NOW), "another key").toBe(false);
    const malformed = ["", expires, `${expires}.`, `${expires}.${mac}=`, `${expires}.${mac.slice(1)}`, `-1.${mac}`, `${expires}.${mac}.x`];
    expect(malformed.map((t) => linkValid(key, t, NOW))).toEqual(malformed.map(() => false));
  });
});

const { place, open } = leadDatabases();
describe.each(ENGINES)("the link's key in the lead store on %s", (engine) => {
  it("is made on first use and the same for every process on the store; renewed, every link before it stops opening", async () => {
    const where = await place(engine);
    const [command, server] = [open(where), open(where)];
    await prepareStore(command);
    const first = await linkKey(command);
    expect(first).toHaveLength(32);
    expect(await linkKey(server)).toEqual(first);
    const token = signLink(first, NOW + DAY);
    const renewed = await linkKey(command, true);
    expect(renewed).not.toEqual(first);
    expect(await linkKey(server)).toEqual(renewed);
    expect([linkValid(renewed, token, NOW), linkValid(renewed, signLink(renewed, NOW + DAY), NOW)]).toEqual([false, true]);
  });
});
