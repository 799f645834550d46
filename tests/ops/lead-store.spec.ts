/**
 * The SQLite lead store under what a machine does to it, with real processes: a disk that fills
 * (a small tmpfs), with leads waiting and with none, and a damaged file at start; every thanked
 * lead delivered exactly once. (A second or paused server: exactly-once.spec; another process's
 * lock: stop-sqlite-locked.spec.) opsPort 70 (metrics 72) and 71.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { messages } from "../../app/content/messages";
import { dataDir, deliveredOnce, events, keyed, postContact, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { said, startedByEachTest } from "../support/started";
import { fill } from "../support/tmpfs.mjs";

const { fakeService, site, tmpfs } = startedByEachTest();

/** The reads and writes (system calls) a process has made: work done, which no machine's speed changes. */
const ioCalls = (pid: number) => {
  const io = Object.fromEntries(
    readFileSync(`/proc/${pid}/io`, "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(": ")),
  ) as Record<string, string>;
  return Number(io.syscr) + Number(io.syscw);
};

test("a disk that fills: posts get the failure text, the loop waits (one line, a metric), thanked leads outlive a kill -9 and go out once; with none waiting, failing until the space is back", async () => {
  // Over 30 s: two 4 s windows watching the loop on a full disk, a restart, and the loop's back-off.
  test.setTimeout(90_000);
  const dir = tmpfs("2m");
  const fake = await fakeService();
  fake.setMode("fail500");
  const metrics = async () => (await fetch(`http://127.0.0.1:${opsPort(72)}/metrics`)).text();
  const failing = async () => /^lead_store_failing\{[^}]*\} (\d)$/m.exec(await metrics())?.[1];
  // FORM_TIMEOUT_MS as by default: a shorter one, held up by the server's own writes, passes on a slow machine.
  const env = keyed(fake, dir, { METRICS_PORT: String(opsPort(72)) });
  const first = site(opsPort(70), env);
  await first.listening;
  // About 100 KB left, then 5 KB leads, each from a client of its own, until five are refused.
  const fillers = [fill(dir, 100_000)];
  const [thanked, refused]: [string[], string[]] = [[], []];
  for (let i = 0; i < 40 && refused.length < 5; i++) {
    const token = `diskfull-${i}-`;
    const answer = await postContact(first.url, `${token} ${"Our project, described at length. ".repeat(140)}`, { localAddress: `127.0.1.${i + 1}` });
    if (answer.status === 303) thanked.push(token);
    else expect([answer.status, answer.body.includes(messages.contactFailed)], token).toEqual([503, true]);
    if (answer.status !== 303) refused.push(token);
  }
  expect([thanked.length > 0, refused.length], "stored before the disk filled, and refused after").toEqual([true, 5]);
  await expect.poll(() => said(first).filter((e) => e === "lead_not_stored").length).toBe(refused.length);
  fillers.push(fill(dir)); // the last bytes too: no write of the loop's fits

  // The thanked leads wait, so the loop meets the full disk: in 4 s two looks, where one not waiting made 26,000 calls in 8 s.
  const faults = () => events(first.stdout()).filter((e) => String(e.event).startsWith("lead_store_"));
  await expect.poll(() => faults().length, { timeout: 8_000, message: "the loop met the full disk" }).toBe(1);
  const callsBefore = ioCalls(first.child.pid!);
  await sleep(4_000);
  expect(ioCalls(first.child.pid!) - callsBefore, "reads and writes in 4 s on a full disk").toBeLessThan(100);
  expect(faults()).toEqual([expect.objectContaining({ level: "error", event: expect.stringMatching(/^lead_store_(read|write)_failed$/) })]);
  expect(await failing()).toBe("1");

  // Killed on the full disk; the space back, the next server delivers each thanked lead once.
  first.child.kill("SIGKILL");
  await first.exited;
  for (const filler of fillers) rmSync(filler);
  fake.setMode("ok");
  const second = site(opsPort(70), env);
  await second.listening;
  await deliveredOnce(fake, thanked, { within: 60_000 });
  const sent = refused.map((t) => fake.received(t).length);
  expect(sent, "never stored, never sent").toEqual(refused.map(() => 0));

  // Full again with no lead waiting: a look that writes nothing would prove nothing cleared.
  const filler = fill(dir);
  expect((await postContact(second.url, "Refused (full-0-).", { localAddress: "127.0.9.1" })).status).toBe(503);
  expect(await failing()).toBe("1");
  await sleep(4_000); // the loop's looks at 1 and 3 s
  expect([await failing(), said(second)], "still failing: the disk is still full").toEqual(["1", expect.not.arrayContaining(["lead_store_recovered"])]);
  rmSync(filler);
  await expect.poll(() => said(second), { timeout: 30_000 }).toContain("lead_store_recovered");
  expect(await failing()).toBe("0");
  expect((await postContact(second.url, "Taken (full-1-).", { localAddress: "127.0.9.2" })).status).toBe(303);
  await deliveredOnce(fake, ["full-1-"]);
});

const sha = (file: string) => (existsSync(file) ? createHash("sha256").update(readFileSync(file)).digest("hex") : "absent");

test("a store the server cannot read stops the start with one JSON line and exit 1, its bytes unchanged; once fixed, all its leads are delivered once", async () => {
  // Over 30 s: three starts, and the fixed one delivers leads that already failed on the real retry schedule.
  test.setTimeout(90_000);
  const dir = dataDir();
  const db = join(dir, "leads.db");
  const fake = await fakeService();
  fake.setMode("fail500");
  const env = keyed(fake, dir);
  const first = site(opsPort(71), env);
  await first.listening;
  const tokens = ["unread-1", "unread-2", "unread-3"];
  for (const [i, token] of tokens.entries())
    expect((await postContact(first.url, `Keep me (${token}).`, { localAddress: `127.0.2.${i + 1}` })).status).toBe(303);
  await expect.poll(() => tokens.every((t) => fake.received(t).length > 0)).toBe(true);
  first.child.kill("SIGKILL"); // the WAL still holds them
  await first.exited;

  // The header damaged in the file and in the WAL, which holds a newer page 1: SQLite reads neither.
  const [good, wal] = [readFileSync(db), readFileSync(`${db}-wal`)];
  writeFileSync(db, Buffer.concat([Buffer.from("not SQLite here!"), good.subarray(16)]));
  writeFileSync(`${db}-wal`, Buffer.concat([Buffer.from("not a WAL header"), wal.subarray(16)]));
  const before = [sha(db), sha(`${db}-wal`)];
  const refused = site(opsPort(71), env);
  expect((await refused.exited).code).toBe(1);
  expect(said(refused)).not.toContain("start");
  expect(events(refused.stdout()).filter((e) => e.level === "error")).toEqual([expect.objectContaining({ event: "lead_store_unusable", store: db })]);
  expect([sha(db), sha(`${db}-wal`)], "the store's bytes").toEqual(before);

  writeFileSync(db, Buffer.concat([good.subarray(0, 16), readFileSync(db).subarray(16)]));
  writeFileSync(`${db}-wal`, Buffer.concat([wal.subarray(0, 16), readFileSync(`${db}-wal`).subarray(16)]));
  fake.setMode("ok");
  await site(opsPort(71), env).listening;
  await deliveredOnce(fake, tokens);
});
