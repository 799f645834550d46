/**
 * Several people behind one address (an office router, CGNAT): past an address's share their leads
 * are thanked and held, not refused (decision 0031; a flood's 429: address-share.test.ts,
 * security.spec). Visitors through two trusted proxies count by the address reported, direct
 * clients by their socket's. opsPort 35.
 */
import { expect, test } from "@playwright/test";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { PER_ADDRESS } from "../../server/leads/schedule";
import { freePort } from "../support/ports";
import { type Answer, dataDir, deliveredOnce, keyed, leadsCommand, postContact } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { fakeService, site } = startedByEachTest();
const tokens = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
/** Thanked: the post was stored and the visitor sent to the thanks, with no word of sending too much. */
const thanked = (answer: Answer, who: string) => {
  expect([answer.status, answer.headers.location], who).toEqual([303, expect.stringMatching(CONTACT_SENT)]);
  expect(answer.body).not.toMatch(/You have sent/i);
};

test("colleagues behind one address, directly or through either of two proxies, are all thanked and kept (five go at once, the rest held) while other addresses go at once", async () => {
  const fake = await fakeService();
  const [dir, metricsPort] = [dataDir(), await freePort()];
  const server = site(opsPort(35), keyed(fake, dir, { METRICS_PORT: String(metricsPort), TRUST_PROXY: "127.0.0.5, 127.0.0.6" }));
  await server.listening;
  /** The leads held for an address's share, as the operator's alert reads them. */
  const held = async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    return Number(/^leads_held_now\{[^}]*reason="address"[^}]*\} (\d+)$/m.exec(text)?.[1]);
  };
  const post = async (token: string, options: Parameters<typeof postContact>[2]) =>
    thanked(await postContact(server.url, `Please quote (${token}).`, options), token);

  for (const token of tokens("office", 8)) await post(token, { localAddress: "127.0.0.2", name: `Colleague ${token}` });
  // The two proxies pass on visitors who all share one carrier address.
  for (const [i, token] of tokens("carrier", 7).entries()) await post(token, { localAddress: `127.0.0.${5 + (i % 2)}`, forwardedFor: "198.51.100.7" });
  // A visitor at another address, direct or reported, is not held for the others' sake.
  await post("elsewhere-1", { localAddress: "127.0.0.3" });
  await post("other-1", { localAddress: "127.0.0.5", forwardedFor: "198.51.100.8" });
  await deliveredOnce(fake, ["elsewhere-1", "other-1"], { settle: 0 });
  await expect.poll(() => [fake.accepted("office-").length, fake.accepted("carrier-").length]).toEqual([PER_ADDRESS.letThrough, PER_ADDRESS.letThrough]);
  await expect.poll(held).toBe(3 + 2);

  // Nothing thanked was lost: released, each of the colleagues' leads arrives exactly once.
  expect((await leadsCommand(dir)("release")).stdout).toMatch(/^released 5 lead/);
  await deliveredOnce(fake, [...tokens("office", 8), ...tokens("carrier", 7)]);
});
