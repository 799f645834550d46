/**
 * Upgrading and rolling back lose nothing (docs/operations.md), from the release before, the only
 * one upgrades are supported from (previous-release.ts). On SQLite and PostgreSQL side by side: the
 * release before, this one, the release before, this one, each taking over what the one before
 * left pending (a 500), parked (a 401) and held, and a new lead: each delivered exactly once. Then
 * SQLite's folder meets DATABASE_URL (the move's rules: store.test.ts) and its leads move into
 * PostgreSQL in their states. opsPort 67 and 68.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { previousRelease } from "../support/previous-release";
import { dataDir, deliveredOnce, events, keyed, leadsCommand, postContact, serve } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { fakeService, postgres, site, stop } = startedByEachTest();

test("upgraded from the release before, rolled back to it, upgraded again, on SQLite (then moved into PostgreSQL) and on PostgreSQL: leads pending, held and parked at each step, and new ones at each, each delivered once, none lost", async () => {
  // Over 30 s: the release before is built once a run (10-20 s), then each chain starts five servers in turn.
  test.setTimeout(240_000);
  const previous = await previousRelease();
  const fake = await fakeService();
  const cluster = await postgres();

  async function chain(engine: "sqlite" | "postgres", n: number) {
    const dir = dataDir();
    const database = async (name: string) => ({ DATABASE_URL: await cluster.database(name) });
    const [stored, moved] = engine === "postgres" ? [await database("sites"), {}] : [{}, await database("moved")];
    const steps = [previous.serve, serve, previous.serve, serve, ...(engine === "sqlite" ? [serve] : [])];
    const marker = (name: string) => `upgrade-${engine}-${name}-`;
    const thanked: string[] = [];
    let client = 1;
    /** A contact message from a client address of its own (unless `from`), thanked. */
    async function post(url: string, name: string, from = `127.0.${50 + n}.${client++}`) {
      expect((await postContact(url, `A lead across releases (${marker(name)}).`, { localAddress: from })).status, `${engine} ${name}`).toBe(303);
      thanked.push(name);
    }
    const reference = (name: string) => /Reference: ([\w-]+)/.exec(JSON.stringify(fake.received(marker(name))[0]))?.[1];
    const delivered = (...names: string[]) => deliveredOnce(fake, names.map(marker), { settle: 0 });

    for (const [step, start] of steps.entries()) {
      const env = keyed(fake, dir, step === 4 ? moved : stored);
      const ours = start === serve;
      const leads = ours
        ? (...args: string[]) => leadsCommand(dir, env)(...args).then((r) => r.stdout)
        : async (...args: string[]) => previous.leads(args, env);
      const server = site(opsPort(67 + n), env, start);
      await server.listening;
      // Schema 4 both ways: nothing to convert, so nothing the release before could not read.
      const started = events(server.stdout()).filter((e) => /migrat|moved|handed/.test(String(e.event)));
      expect(started, `${engine}, step ${step}: what the start converted`).toEqual(
        step === 4 ? [expect.objectContaining({ event: "leads_moved_into_postgresql", leads: thanked.length })] : [],
      );
      if (step === 4)
        expect([existsSync(join(dir, "leads.db")), existsSync(join(dir, "leads.db.moved-to-postgresql"))], "leads.db, and it renamed").toEqual([false, true]);
      if (step === 0) {
        // Five delivered from one address and a sixth held by its share (five let through in ten minutes).
        for (const x of ["a", "b", "c", "d", "e"]) await post(server.url, `delivered-${x}`, `127.0.${50 + n}.250`);
        await post(server.url, "held", `127.0.${50 + n}.250`);
        await delivered(...["a", "b", "c", "d", "e"].map((x) => `delivered-${x}`));
      } else {
        // What the step before left: the pending lead goes by itself, the parked one on `retry`.
        for (const name of [`pending-${step - 1}`, `parked-${step - 1}`]) fake.setMode("ok", undefined, marker(name));
        await delivered(`pending-${step - 1}`);
        if (ours)
          expect(await leads("list"), "listed, with the service's answer").toMatch(
            new RegExp(`^${reference(`parked-${step - 1}`)}\\t\\w+\\tparked\\t.*\\thttp 401\\t`, "m"),
          );
        expect(await leads("retry"), `${engine}, step ${step}`).toContain("re-queued 1 lead(s)");
        await delivered(`parked-${step - 1}`);
      }
      await post(server.url, `new-${step}`);
      await delivered(`new-${step}`);
      if (step < steps.length - 1) {
        for (const [name, mode] of [
          [`pending-${step}`, "fail500"],
          [`parked-${step}`, "unauthorized"],
        ] as const) {
          fake.setMode(mode, undefined, marker(name));
          await post(server.url, name);
        }
        await expect.poll(() => [`pending-${step}`, `parked-${step}`].map((name) => fake.received(marker(name)).length > 0)).toEqual([true, true]);
      } else {
        expect(await leads("release")).toContain("released 1 lead(s)");
        await delivered("held");
        // Two looks at the store (every 2 s): nothing goes twice.
        await deliveredOnce(fake, thanked.map(marker), { settle: 3_000 });
        expect(JSON.parse(await leads("status"))).toMatchObject({ pending: 0, held: 0, parked: 0 });
      }
      await stop(server);
    }
    // Each thanked lead reached the service once, under a reference of its own, and nothing else did.
    const references = fake.accepted(`upgrade-${engine}-`).map((body) => /Reference: ([\w-]+)/.exec(JSON.stringify(body))?.[1]);
    expect([new Set(references).size, references.length], `${engine}: references delivered, distinct and in all`).toEqual([thanked.length, thanked.length]);
  }
  const chains = await Promise.allSettled([chain("sqlite", 0), chain("postgres", 1)]);
  for (const each of chains) if (each.status === "rejected") throw each.reason;
});
