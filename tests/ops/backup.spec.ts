/**
 * Backups never resend (issue 41, decision 0048): a backup taken with `npm run -s leads -- backup`
 * while visitors send, the service then confirming every lead, then the store replaced by the
 * backup: the service (which, like Web3Forms, does not dedupe) gets nothing twice, and every lead
 * thanked before the backup began is in the restored store, parked as "restored" for the operator.
 * SQLite as an operator in the issue restored it (the file copied over leads.db), and PostgreSQL
 * lost and restored into a new database with `restore`. Servers from build/ on opsPort 63-66.
 */
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type FakeFormService } from "../support/fake-form-service";
import { dataDir, deliveredOnce, keyed, leadsCommand, postContact, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { fakeService, postgres, site, stop } = startedByEachTest();

/**
 * Visitors sending while the service fails (so their leads wait), and the backup taken in the
 * middle of it: the tokens thanked before the backup began, and every token thanked.
 */
async function backupMidTraffic(url: string, fake: FakeFormService, backup: () => Promise<unknown>, prefix: string) {
  fake.setMode("fail500");
  const thanked: { token: string; at: number }[] = [];
  let sending = true;
  const visitors = (async () => {
    for (let n = 1; sending || n <= 4; n++) {
      const token = `${prefix}.${n}.`; // its own: "x.1." is not in "x.10."
      // Each from a client of its own: one address's share of leads would hold the rest (decision 0031).
      const answer = await postContact(url, `Backup test: ${token}`, { localAddress: `127.0.1.${n}` });
      expect(answer.status, `${token} thanked`).toBe(303);
      thanked.push({ token, at: answer.at });
      await sleep(40);
    }
  })();
  await expect.poll(() => thanked.length).toBeGreaterThanOrEqual(5);
  const began = Date.now();
  await backup();
  await sleep(300); // a few more after it
  sending = false;
  await visitors;
  fake.setMode("ok");
  const before = thanked.filter((lead) => lead.at < began).map((lead) => lead.token);
  expect(before.length).toBeGreaterThanOrEqual(5);
  expect(thanked.length).toBeGreaterThan(before.length);
  return { before, all: thanked.map((lead) => lead.token) };
}

/** The restored store's leads, by token: status and reason (from `export`). */
async function exported(leads: ReturnType<typeof leadsCommand>) {
  const lines = (await leads("export")).stdout.split("\n").filter(Boolean);
  return new Map(
    lines.map((line) => {
      const lead = JSON.parse(line) as { text: string; status: string; reason?: string };
      return [/Backup test: (\S+)/.exec(lead.text)?.[1], { status: lead.status, reason: lead.reason }];
    }),
  );
}

test("SQLite: a backup taken mid-traffic, copied over leads.db after every lead went out, sends nothing again and loses no lead thanked before it", async () => {
  test.setTimeout(120_000);
  const dir = dataDir();
  const fake = await fakeService();
  const first = site(opsPort(63), keyed(fake, dir));
  await first.listening;
  const leads = leadsCommand(dir);
  const file = join(dataDir(), "leads-backup.db");
  const { before, all } = await backupMidTraffic(first.url, fake, () => leads("backup", file), "Sqlite");
  await deliveredOnce(fake, all, { within: 60_000, settle: 0 });
  await stop(first);

  // What the operator did: the backup file put where the lost store was.
  for (const suffix of ["", "-wal", "-shm"]) rmSync(join(dir, `leads.db${suffix}`), { force: true });
  copyFileSync(file, join(dir, "leads.db"));
  const second = site(opsPort(64), keyed(fake, dir));
  await second.listening;
  // Two of the server's looks at the store (every 2 s) and a retry's delay: anything sent again would be by now.
  await deliveredOnce(fake, all, { settle: 5_000 });
  const restored = await exported(leads);
  for (const token of before) expect(restored.get(token), token).toEqual({ status: "parked", reason: "restored" });
});

test("PostgreSQL: a backup taken mid-traffic, restored with `restore` into a new database after the old one was lost, sends nothing again and loses no lead thanked before it", async () => {
  test.setTimeout(150_000);
  const cluster = await postgres();
  const [lost, fresh] = [await cluster.database("lost"), await cluster.database("fresh")];
  const fake = await fakeService();
  const dir = dataDir();
  const first = site(opsPort(65), keyed(fake, dir, { DATABASE_URL: lost }));
  await first.listening;
  const file = join(dataDir(), "leads-backup.db");
  const { before, all } = await backupMidTraffic(first.url, fake, () => leadsCommand(dir, { DATABASE_URL: lost })("backup", file), "Postgres");
  await deliveredOnce(fake, all, { within: 60_000, settle: 0 });
  await stop(first);

  const leads = leadsCommand(dir, { DATABASE_URL: fresh });
  expect((await leads("restore", file)).stdout).toMatch(/^restored \d+ of \d+ lead\(s\)/);
  const second = site(opsPort(66), keyed(fake, dir, { DATABASE_URL: fresh }));
  await second.listening;
  await deliveredOnce(fake, all, { settle: 5_000 });
  const restored = await exported(leads);
  for (const token of before) expect(restored.get(token), token).toEqual({ status: "parked", reason: "restored" });
});
