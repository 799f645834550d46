/**
 * Backups never resend (issue 41, decision 0048): a backup taken mid-traffic, every lead then
 * confirmed, the store replaced by the backup: the service (no dedupe, like Web3Forms) gets nothing
 * twice, and every lead thanked before the backup is restored, parked as "restored". SQLite by the
 * file copied over leads.db, as the issue's operator did; PostgreSQL by `restore` into a new
 * database. opsPort 63-66.
 */
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { dataDir, deliveredOnce, keyed, leadsCommand, postContact, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { fakeService, postgres, site, stop } = startedByEachTest();

for (const [n, engine] of (["SQLite", "PostgreSQL"] as const).entries())
  test(`${engine}: a backup taken mid-traffic and put back after every lead went out (${n ? "`restore` into a new database, the old one lost" : "copied over leads.db"}) sends nothing again and loses no lead thanked before it`, async () => {
    // Over 30 s on a machine four times slower: two servers, three commands, a settle of 5 s.
    test.setTimeout(90_000);
    const fake = await fakeService();
    const dir = dataDir();
    const cluster = n ? await postgres() : undefined;
    const [lost, fresh] = cluster ? [{ DATABASE_URL: await cluster.database("lost") }, { DATABASE_URL: await cluster.database("fresh") }] : [{}, {}];
    const first = site(opsPort(63 + 2 * n), keyed(fake, dir, lost));
    await first.listening;
    const file = join(dataDir(), "leads-backup.db");

    // Visitors send while the service holds its answers (so their leads wait), and the backup is taken in the middle of it.
    fake.setMode("hold");
    const thanked: { token: string; at: number }[] = [];
    let sending = true;
    const visitors = (async () => {
      for (let i = 1; sending || i <= 4; i++) {
        const token = `${engine}.${i}.`; // its own: "x.1." is not in "x.10."
        // Each from a client of its own: one address's share of leads would hold the rest (decision 0031).
        const answer = await postContact(first.url, `Backup test: ${token}`, { localAddress: `127.0.1.${i}` });
        expect(answer.status, `${token} thanked`).toBe(303);
        thanked.push({ token, at: answer.at });
        await sleep(40);
      }
    })();
    await expect.poll(() => thanked.length).toBeGreaterThanOrEqual(5);
    const began = Date.now();
    await leadsCommand(dir, lost)("backup", file);
    await sleep(300); // a few more after it
    sending = false;
    await visitors;
    const before = thanked.filter((lead) => lead.at < began).map((lead) => lead.token);
    const all = thanked.map((lead) => lead.token);
    expect([before.length >= 5, all.length > before.length], "thanked before the backup, and after").toEqual([true, true]);
    fake.setMode("ok");
    fake.answer(200);
    await deliveredOnce(fake, all, { within: 60_000, settle: 0 });
    await stop(first);

    if (n) expect((await leadsCommand(dir, fresh)("restore", file)).stdout).toMatch(/^restored \d+ of \d+ lead\(s\)/);
    else {
      // What the issue's operator did: the backup file put where the lost store was.
      for (const suffix of ["", "-wal", "-shm"]) rmSync(join(dir, `leads.db${suffix}`), { force: true });
      copyFileSync(file, join(dir, "leads.db"));
    }
    const second = site(opsPort(64 + 2 * n), keyed(fake, dir, fresh));
    await second.listening;
    // Two of the server's looks at the store (every 2 s) and a retry's delay: anything sent again would be by now.
    await deliveredOnce(fake, all, { settle: 5_000 });
    const lines = (await leadsCommand(dir, fresh)("export")).stdout.split("\n").filter(Boolean);
    const restored = new Map(
      lines.map((line) => {
        const lead = JSON.parse(line) as { text: string; status: string; reason?: string };
        return [/Backup test: (\S+)/.exec(lead.text)?.[1], { status: lead.status, reason: lead.reason }];
      }),
    );
    for (const token of before) expect(restored.get(token), token).toEqual({ status: "parked", reason: "restored" });
  });
