/**
 * Delivery when the parts under it misbehave, with real processes: a form service that fails,
 * hangs or lies, then a kill -9 of the site; PostgreSQL killed -9 mid-delivery. (A full disk:
 * lead-store.spec; a stop: stop.spec; paused processes: exactly-once.spec.) opsPort 12 and 87.
 */
import { expect, test } from "@playwright/test";
import { CONTACT_SENT } from "../../app/contact/action.server";
import { type FakeMode } from "../support/fake-form-service";
import { dataDir, deliveredOnce, keyed, leadsCommand, postContact } from "../support/server";
import { opsPort } from "../support/sites";
import { said, startedByEachTest } from "../support/started";

const { fakeService, postgres, site } = startedByEachTest();

test("a failing, hanging or lying form service costs no lead: each visitor thanked, and after a kill -9 each lead arrives once, the hanging one again with its reference", async () => {
  // Over 30 s: the restarted server waits out the killed one's claims, then retries on the real schedule.
  test.setTimeout(90_000);
  const fake = await fakeService();
  // A send to the hanging service takes the whole FORM_TIMEOUT_MS: far longer than any visitor waits.
  const env = keyed(fake, dataDir(), { FORM_TIMEOUT_MS: "4000" });
  const modes: FakeMode[] = ["fail500", "hang", "html200", "successFalseString"];
  const first = site(opsPort(12), env);
  await first.listening;
  for (const [i, mode] of modes.entries()) {
    fake.setMode(mode, undefined, `durable-${mode}`);
    // That the thanks never waits for the service: stop.spec.ts, with one that holds its answer.
    const answer = await postContact(first.url, `Please call back (durable-${mode}).`, { localAddress: `127.0.0.${10 + i}` });
    expect([answer.status, answer.headers.location], mode).toEqual([303, expect.stringMatching(CONTACT_SENT)]);
  }
  await expect.poll(() => modes.every((mode) => fake.received(`durable-${mode}`).length > 0)).toBe(true);
  first.child.kill("SIGKILL");
  await first.exited;

  for (const mode of modes) fake.setMode("ok", undefined, `durable-${mode}`);
  const second = site(opsPort(12), env);
  await second.listening;
  const tokens = modes.map((mode) => `durable-${mode}`);
  await deliveredOnce(fake, tokens, { within: 60_000 });
  // The service had the hanging one when the site died: sent again, with the same reference for the receiver to drop it by.
  const references = fake.received("durable-hang").map((body) => /Reference: ([\w-]+)/.exec(JSON.stringify(body))?.[1]);
  expect(references).toEqual([expect.stringMatching(/^\d{8}-[0-9A-Z]{8}$/), references[0]]);
  expect(await (await fetch(`${second.url}/healthz`)).json()).toEqual({ status: "ok" });
});

test("PostgreSQL killed -9 mid-delivery: answers that arrive while it is down are written once it is back, never sent again, every lead once", async () => {
  // Over 30 s: the waiting leads retry on the real schedule after PostgreSQL is back.
  test.setTimeout(90_000);
  const cluster = await postgres();
  const db = await cluster.database("site");
  const fake = await fakeService();
  const waiting = ["crashed-waiting-1-", "crashed-waiting-2-", "crashed-waiting-3-"];
  // Fewer than the delivery's slots, so nothing but the store's state keeps them from going again.
  const inFlight = ["crashed-inflight-1-", "crashed-inflight-2-"];
  for (const token of waiting) fake.setMode("fail500", undefined, token);
  for (const token of inFlight) fake.setMode("hold", undefined, token);
  const dir = dataDir();
  const server = site(opsPort(87), keyed(fake, dir, { DATABASE_URL: db }));
  await server.listening;
  for (const [i, token] of [...waiting, ...inFlight].entries())
    expect((await postContact(server.url, `Sent as PostgreSQL dies (${token}).`, { localAddress: `127.0.12.${i + 1}` })).status, token).toBe(303);
  await expect.poll(() => [...waiting, ...inFlight].every((t) => fake.received(t).length > 0), { message: "every lead tried" }).toBe(true);

  await cluster.kill();
  // The service takes the two while nothing can be written: the server keeps their confirmations.
  for (const token of inFlight) fake.answer(200, token);
  await expect.poll(() => said(server).some((e) => /^lead_store_(read|write)_failed$/.test(e)), { message: "the store failing, said" }).toBe(true);
  await cluster.restart();
  for (const token of waiting) fake.setMode("ok", undefined, token);
  await deliveredOnce(fake, [...waiting, ...inFlight], { within: 60_000 });
  // Once the store has every lead delivered, none can be sent again.
  const status = async () => JSON.parse((await leadsCommand(dir, { DATABASE_URL: db })("status")).stdout) as { pending: number };
  await expect.poll(async () => (await status()).pending, { message: "leads not yet written as delivered", timeout: 30_000 }).toBe(0);
  const sends = inFlight.map((t) => fake.received(t).length);
  expect(sends, "sends of each lead in flight").toEqual([1, 1]);
  expect(said(server).filter((e) => e === "lead_delivered")).toHaveLength(waiting.length + inFlight.length);
  // A connection lost while a transaction held it once ended the server (an uncaught 'error' event).
  expect([server.child.exitCode, server.child.signalCode], "the server's exit").toEqual([null, null]);
});
