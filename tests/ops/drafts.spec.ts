/**
 * A flood of drafts (decision 0034): many addresses post maximum-size step-5 mistakes, each at its
 * post limit, with no JavaScript, against a server whose drafts are in its database: SQLite's
 * leads.db, and the PostgreSQL containers share (DATABASE_URL). The flood charges the drafts'
 * budget past its 16 MB, so records are evicted, the heaviest client's oldest first: an honest
 * visitor's draft and receipt, made before the flood, outlive it, the database holds no more than
 * the budget, and leads sent during and after the flood are thanked and delivered. Each test
 * starts its own server (opsPort 180-181), fake form service (opsPort 182-183) and, for
 * PostgreSQL, a cluster; the flood's addresses are loopback ones (127.0.40.x).
 */
import { request } from "node:http";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { expect, test } from "@playwright/test";
import pg from "pg";
import { calculatorText } from "../../app/content/calculator";
import { DRAFT_MEMORY } from "../../server/drafts";
import { biggestDraft } from "../support/biggest-draft";
import { startFakeFormService } from "../support/fake-form-service";
import { type Postgres, startPostgres } from "../support/postgres";
import { dataDir, events, keyed, serve, type Served } from "../support/server";
import { e2eDir, opsPort } from "../support/sites";

const valid = (company: string) => ({
  ...biggestDraft(company),
  name: "Ada",
  email: "ada@example.com",
  phone: "+27 11 555 0100",
  "state.description": "A shop.",
});

interface Posted {
  status: number;
  location: string;
  cookie: string;
}

/** A no-JavaScript post to the home page's action from `localAddress`, with `cookie` if given. */
function post(url: string, fields: Record<string, string>, localAddress: string, cookie = ""): Promise<Posted> {
  const body = new URLSearchParams(fields).toString();
  const headers = {
    Origin: url,
    "Content-Type": "application/x-www-form-urlencoded",
    "Content-Length": Buffer.byteLength(body),
    ...(cookie ? { cookie } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = request(`${url}/?index`, { method: "POST", localAddress, headers }, (res) => {
      res.resume();
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, location: res.headers.location ?? "", cookie: res.headers["set-cookie"]?.[0]?.split(";")[0] ?? cookie }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

const page = async (url: string, location: string, cookie: string) => (await fetch(url + location, { headers: { cookie } })).text();

/**
 * `addresses` × 29 posts (one under the limit a minute), 16 at a time: about 180 KB of drafts an
 * address. `midway` runs once half the posts are answered, while the other half go on.
 */
async function flood(url: string, addresses: number, midway: () => Promise<void>) {
  const posts = Array.from({ length: addresses * 29 }, (_, i) => [`127.0.40.${(i % addresses) + 1}`, `flood-${i}`] as const);
  const half = posts.length / 2;
  const statuses = new Map<number, number>();
  let answered = 0;
  let during: Promise<void> | undefined;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let next = posts.shift(); next; next = posts.shift()) {
        const { status } = await post(url, biggestDraft(next[1]), next[0]);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (++answered === half) during = midway();
      }
    }),
  );
  await during;
  return Object.fromEntries(statuses);
}

/** What the drafts table holds: its records, what they are charged in all, and for how many clients. */
const DRAFTS = "SELECT count(*) AS records, coalesce(sum(cost), 0) AS charged, count(DISTINCT client) AS clients FROM drafts";
async function draftsHeld(where: { dir: string } | { url: string }) {
  if ("dir" in where) {
    const db = new DatabaseSync(join(where.dir, "leads.db"), { readOnly: true });
    try {
      return Object.fromEntries(Object.entries(db.prepare(DRAFTS).get()!).map(([k, v]) => [k, Number(v)]));
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: where.url });
  await client.connect();
  try {
    return Object.fromEntries(Object.entries((await client.query(DRAFTS)).rows[0] as object).map(([k, v]) => [k, Number(v)]));
  } finally {
    await client.end();
  }
}

/** What a test started, ended after it whatever its end (a timeout abandons the test's body and its finally). */
let teardown: (() => unknown)[] = [];
test.afterEach(async () => {
  for (const step of teardown.reverse()) await step();
  teardown = [];
});

// 120 addresses × 29 posts of about 6.4 KB charged each: about 22 MB, past the budget's 16 MB.
const ADDRESSES = 120;
for (const [n, engine] of (["SQLite", "PostgreSQL"] as const).entries()) {
  test(`drafts on ${engine}: a flood of maximum-size drafts from ${ADDRESSES} addresses evicts the flooders' drafts, keeps an honest visitor's draft and receipt and the database within the budget, and leads sent during and after it are delivered`, async () => {
    // Over 30 s: a budget by the flood's posts (3,480 of 9 KB each): 1.2-1.3 ms a post in memory
    // on an idle machine, 5-8.5 ms with every process of the test on half a core (four times
    // slower), more on a machine as busy as a full test run makes it; 40 ms a post allowed.
    test.setTimeout(30_000 + ADDRESSES * 29 * 40);
    const dir = dataDir();
    let postgres: Postgres | undefined;
    if (engine === "PostgreSQL") {
      postgres = await startPostgres({ parent: e2eDir });
      teardown.push(() => postgres!.stop());
    }
    const databaseUrl = await postgres?.database("site");
    const fake = await startFakeFormService({ port: opsPort(182 + n) });
    teardown.push(() => fake.close());
    const server: Served = serve(opsPort(180 + n), keyed(fake, dir, databaseUrl ? { DATABASE_URL: databaseUrl } : {}));
    teardown.push(() => server.kill());
    const held = () => draftsHeld(databaseUrl ? { url: databaseUrl } : { dir });
    await server.listening;
    // The honest visitor sends a request (a receipt), then starts another and makes a mistake (a draft).
    const honest = "127.0.30.1";
    const sent = await post(server.url, valid("Honest Receipt Co"), honest);
    expect(sent.location).toMatch(/receipt=/);
    const draft = await post(server.url, { ...biggestDraft("Honest Draft Co"), email: "ada@" }, honest, sent.cookie);
    expect(draft.location).toMatch(/draft=/);
    expect(await page(server.url, sent.location, sent.cookie)).toContain(calculatorText.referenceLabel);
    expect(await page(server.url, draft.location, sent.cookie)).toContain("Honest Draft Co");

    // Midway, a lead from a visitor of its own: thanked with its receipt while the flood goes on.
    const answered = await flood(server.url, ADDRESSES, async () =>
      expect((await post(server.url, valid("During The Flood Co"), "127.0.30.2")).location).toMatch(/receipt=/),
    );
    expect(answered).toEqual({ 303: ADDRESSES * 29 });
    const after = await held();
    console.log(`${engine}: drafts after the flood: ${JSON.stringify(after)} (budget ${DRAFT_MEMORY} charged)`);
    // Evicted: fewer records than were saved, charged within the budget. The heaviest client loses
    // its oldest record each time, so the flooders keep some each (and the honest visitor hers).
    expect(after.records).toBeLessThan(ADDRESSES * 29);
    expect(after.charged).toBeLessThanOrEqual(DRAFT_MEMORY);
    expect(after.clients).toBeGreaterThan(ADDRESSES);

    expect(await page(server.url, draft.location, sent.cookie), "the honest draft").toContain("Honest Draft Co");
    const thanks = await page(server.url, sent.location, sent.cookie);
    expect(thanks, "the honest receipt").toContain(calculatorText.referenceLabel);
    expect(thanks).not.toContain(calculatorText.expired);
    // A lead after the flood: thanked, and both delivered without waiting for the drafts to expire.
    expect((await post(server.url, valid("After The Flood Co"), "127.0.30.3")).location).toMatch(/receipt=/);
    await expect.poll(() => ["During The Flood Co", "After The Flood Co"].map((co) => fake.accepted(co).length), { timeout: 15_000 }).toEqual([1, 1]);
    // No lead's write and no limit failed. A save that waits over a second is kept in memory
    // instead (drafts.ts), by design: on a busy machine a flood's post takes up to near that here.
    const said = events(server.stdout());
    const failures = said.filter((e) => ["lead_store_write_failed", "rate_limit_error"].includes(String(e.event)));
    if (said.some((e) => e.event === "draft_store_failed")) console.log(`${engine}: some drafts were kept in memory for a while (draft_store_failed)`);
    expect(failures).toEqual([]);
  });
}
