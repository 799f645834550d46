/**
 * Exactly once where a paused process could break it (docs/operations.md, "Exactly once, and where
 * it cannot be"; decision 0046), with real processes: servers A and B on one store (SQLite's folder,
 * or one PostgreSQL with a data folder each), the webhook holding its answers until the test says
 * how, in the order the sends came, and A's wall clock 30 s behind B's, so a claim read on the wall
 * clock would show. A is paused (SIGSTOP, between writes) while its sends are in flight, and the
 * answers reach it while it is stopped:
 * - within its claim (past FORM_TIMEOUT_MS): A counts the 200 on resume, and B sends nothing;
 * - past its claim: B takes each lead and sends it again, with the same Idempotency-Key. (a) A's
 *   late 401 parks nothing (lead_outcome_late, never lead_parked) and B's 200 delivers it; (b) B's
 *   409 parks it, then A's late 200 makes it delivered. Nothing is left parked, nothing is sent a
 *   third time, and B takes and delivers leads of its own while A is stopped.
 * Servers on opsPort 100-101 (SQLite) and 104-105 (PostgreSQL).
 */
import { expect, test } from "@playwright/test";
import { dataDir, keyed, leadsCommand, pauseBetweenWrites, postContact, type Served, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { said, startedByEachTest } from "../support/started";

const { fakeService, postgres, site } = startedByEachTest();

/** FORM_TIMEOUT_MS: so a claim lasts 8 s (+ 5 s), and a send is surely still in flight when the test pauses its sender. */
const TIMEOUT_MS = 3_000;
/** A's wall clock, 30 s behind: only the wall clock, the host's monotonic one (SQLite's claims) is the same for both. */
const BEHIND = "--import=data:text/javascript,Date.now=((now)=>()=>now()-30000)(Date.now)";

for (const [n, engine] of (["SQLite", "PostgreSQL"] as const).entries())
  test(`${engine}: a server paused while the webhook answered counts the answer on resume within its claim; past it, its late 401 parks nothing and its late 200 delivers what the other parked; each lead ends delivered, none is sent a third time`, async () => {
    // Over 30 s: two pauses, the second past an 8 s claim, then 3 s in which a third send would show.
    test.setTimeout(90_000);
    const fake = await fakeService();
    const dir = dataDir();
    const store: Record<string, string> = engine === "PostgreSQL" ? { DATABASE_URL: await (await postgres()).database("sites") } : {};
    const env = (folder: string) => keyed(fake, folder, { ...store, FORM_PROVIDER: "webhook", FORM_TIMEOUT_MS: String(TIMEOUT_MS) });
    const a = site(opsPort(100 + 4 * n), { ...env(dir), NODE_OPTIONS: BEHIND });
    const b = site(opsPort(101 + 4 * n), env(engine === "SQLite" ? dir : dataDir()));
    await Promise.all([a.listening, b.listening]);
    // On SQLite a process stopped mid-write would keep the other out of the file: a fault of its own.
    const pause = (s: Served) => (engine === "SQLite" ? pauseBetweenWrites(s.child, dir) : void s.child.kill("SIGSTOP"));
    const resume = (s: Served) => s.child.kill("SIGCONT");
    const token = (name: string) => `${name}-${engine}-`;
    /** A lead's reference: the Idempotency-Key its first send carried. */
    const id = (t: string) => String(fake.headers(t)[0]?.["idempotency-key"]);
    let client = 1;
    const post = async (to: Served, t: string) =>
      expect((await postContact(to.url, `Sent around a pause (${t}).`, { localAddress: `127.0.14.${client++}` })).status, t).toBe(303);
    /** Posted to A while B is stopped, so A claims each; once the webhook has them (and holds its answers), A is stopped and B runs. */
    async function inFlightAtA(...tokens: string[]) {
      await pause(b);
      for (const t of tokens) fake.setMode("hold", undefined, t);
      for (const t of tokens) await post(a, t);
      await expect.poll(() => tokens.map((t) => fake.received(t).length), { intervals: [50] }).toEqual(tokens.map(() => 1));
      await pause(a);
      resume(b);
    }

    const within = token("within");
    await inFlightAtA(within);
    fake.answer(200, within);
    // Past FORM_TIMEOUT_MS, within the claim: B, running, looks at the store meanwhile (every 2 s).
    await sleep(TIMEOUT_MS + 1_500);
    resume(a);
    await expect.poll(() => said(a, id(within))).toContain("lead_delivered");

    const [refused, taken, meanwhile, after] = [token("late-401"), token("late-200"), token("meanwhile"), token("after")];
    await inFlightAtA(refused, taken);
    fake.answer(401, refused);
    fake.answer(200, taken);
    await post(b, meanwhile);
    // B takes both once A's claims have run out, and sends them again.
    await expect.poll(() => [refused, taken].map((t) => fake.received(t).length), { timeout: 30_000 }).toEqual([2, 2]);
    fake.answer(409, taken);
    await expect.poll(() => said(b, id(taken))).toContain("lead_parked");
    resume(a);
    const told = (s: Served, t: string) => said(s, id(t)).filter((e) => ["lead_delivered", "lead_parked", "lead_outcome_late"].includes(e));
    await expect.poll(() => [told(a, refused), told(a, taken)].map((lines) => lines.length)).toEqual([1, 1]);
    fake.answer(200, refused);
    await expect.poll(() => told(b, refused).length).toBe(1);
    await post(a, after);

    const leads = leadsCommand(dir, store);
    const listed = async (t: string) => (await leads("list")).stdout.match(new RegExp(`^${id(t)}\\t\\w+\\t(\\w+)`, "m"))?.[1] ?? "not listed";
    expect(
      {
        "(a) A's 401 late, B's 200": { a: told(a, refused), b: told(b, refused), list: await listed(refused) },
        "(b) B's 409, A's 200 late": { a: told(a, taken), b: told(b, taken), list: await listed(taken) },
      },
      "what each server logged of the lead, and `leads list`",
    ).toEqual({
      "(a) A's 401 late, B's 200": { a: ["lead_outcome_late"], b: ["lead_delivered"], list: "not listed" },
      "(b) B's 409, A's 200 late": { a: ["lead_delivered"], b: ["lead_parked"], list: "not listed" },
    });
    // A third send would come from a retry (1-2 s after an attempt taken for failed) or any look (every 2 s).
    await expect.poll(() => [meanwhile, after].map((t) => fake.accepted(t).length)).toEqual([1, 1]);
    await sleep(3_000);
    expect(JSON.parse((await leads("status")).stdout)).toMatchObject({ pending: 0, held: 0, parked: 0 });
    const sends = [within, refused, taken, meanwhile, after].map((t) => fake.headers(t).map((h) => h["idempotency-key"]));
    expect(sends, "each lead's sends, by Idempotency-Key").toEqual([
      [id(within)],
      [id(refused), id(refused)],
      [id(taken), id(taken)],
      [id(meanwhile)],
      [id(after)],
    ]);
    expect(said(b, id(within)), "B, while A's claim held").toEqual([]);
  });
