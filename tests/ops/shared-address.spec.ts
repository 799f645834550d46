/**
 * Several people behind one address (an office router, a carrier's CGNAT) against a real server:
 * past an address's share their leads are thanked and held, not refused (decision 0031), and
 * only a flood that fills its address's bound is told so, truthfully. Without a proxy (the
 * socket's address counts) and behind one (TRUST_PROXY: the address the proxy reports counts).
 * Servers on opsPort 35-36 (image-compose.spec has 30-34), fake form services on 58-59; clients on distinct loopback addresses.
 */
import { expect, test } from "@playwright/test";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { messages } from "../../app/content/messages";
import { startFakeFormService } from "../support/fake-form-service";
import { type Answer, dataDir, deliveredOnce, keyed, leadsCommand, postContact, serve } from "../support/server";
import { opsPort } from "../support/sites";

const status = async (leads: ReturnType<typeof leadsCommand>) => JSON.parse((await leads("status")).stdout) as { pending: number; held: number };
const tokens = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
/** Thanked: the post was stored and the visitor sent to the thanks, with no word of sending too much. */
const thanked = (answer: Answer, who: string) => {
  expect([answer.status, answer.headers.location], who).toEqual([303, expect.stringMatching(CONTACT_SENT)]);
  expect(answer.body).not.toMatch(/You have sent/i);
};

test("without a proxy: eight colleagues behind one address are all thanked and kept (five go at once, three held); a flood from one address is held up to twenty, then refused truthfully", async () => {
  test.setTimeout(90_000);
  const fake = await startFakeFormService({ port: opsPort(58) });
  const dir = dataDir();
  const server = serve(opsPort(35), keyed(fake, dir));
  const leads = leadsCommand(dir);
  try {
    await server.listening;
    for (const token of tokens("office", 8))
      thanked(await postContact(server.url, `Please quote for our new website (${token}).`, { localAddress: "127.0.0.2", name: `Colleague ${token}` }), token);
    // A visitor at another address is not held for the office's sake.
    thanked(await postContact(server.url, "Please call me back (elsewhere-1).", { localAddress: "127.0.0.3" }), "elsewhere");
    await expect.poll(() => fake.accepted("elsewhere-1").length).toBe(1);
    await expect.poll(() => fake.accepted("office-").length).toBe(5);
    expect(await status(leads)).toMatchObject({ held: 3 });

    // One address flooding the forms: its first five go, twenty more are held, the next is refused.
    const flood: Answer[] = [];
    for (const token of tokens("flood", 26)) flood.push(await postContact(server.url, `Buy cheap links now (${token}).`, { localAddress: "127.0.0.4" }));
    for (const [i, answer] of flood.slice(0, 25).entries()) thanked(answer, `flood ${i + 1}`);
    const refused = flood[25]!;
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(refused.body).toContain(messages.rateLimited);
    expect(refused.body).not.toMatch(/You have sent/i);
    await expect.poll(() => fake.accepted("flood-").length).toBe(5);
    expect(await status(leads)).toMatchObject({ held: 23 });

    // Nothing thanked was lost: released, each of the office's leads arrives exactly once.
    expect((await leads("release")).stdout).toMatch(/^released 23 lead/);
    await deliveredOnce(fake, tokens("office", 8));
    expect(fake.received("flood-26")).toEqual([]);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("behind a proxy (TRUST_PROXY): visitors sharing one carrier address are all thanked and kept, whichever proxy they come through; another reported address goes at once", async () => {
  const fake = await startFakeFormService({ port: opsPort(59) });
  const dir = dataDir();
  const server = serve(opsPort(36), keyed(fake, dir, { TRUST_PROXY: "loopback" }));
  const leads = leadsCommand(dir);
  try {
    await server.listening;
    // Two proxies (127.0.0.5 and .6) pass on visitors who all share one carrier address.
    for (const [i, token] of tokens("carrier", 7).entries())
      thanked(
        await postContact(server.url, `Please send a quote (${token}).`, {
          localAddress: `127.0.0.${5 + (i % 2)}`,
          forwardedFor: "198.51.100.7",
          name: `Visitor ${token}`,
        }),
        token,
      );
    thanked(await postContact(server.url, "Please call me back (other-1).", { localAddress: "127.0.0.5", forwardedFor: "198.51.100.8" }), "other");
    await expect.poll(() => fake.accepted("other-1").length).toBe(1);
    await expect.poll(() => fake.accepted("carrier-").length).toBe(5);
    expect(await status(leads)).toMatchObject({ held: 2 });
    expect((await leads("release")).stdout).toMatch(/^released 2 lead/);
    await deliveredOnce(fake, tokens("carrier", 7));
  } finally {
    server.kill();
    await fake.close();
  }
});
