/**
 * The SQLite lead store under what a machine does to it, with real processes: a disk that fills
 * mid-traffic (a small tmpfs as DATA_DIR), a damaged file at start, an owner paused (SIGSTOP)
 * beside a second server on the same folder, and replays of the same form. Every thanked lead is
 * delivered exactly once. Each test starts its own servers from build/ (opsPort 70-74, fake form
 * services opsPort 80-83).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { messages } from "../../app/content/messages";
import { startFakeFormService } from "../support/fake-form-service";
import { dataDir, deliveredOnce, events, keyed, leadsCommand, pauseBetweenWrites, postContact, serve, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { fill, mountTmpfs, unmountTmpfs } from "../support/tmpfs.mjs";

const sha = (file: string) => (existsSync(file) ? createHash("sha256").update(readFileSync(file)).digest("hex") : "absent");

test("the disk fills up mid-traffic (a small tmpfs as DATA_DIR): every thanked lead is delivered exactly once after space returns and a restart; the others got the failure text", async () => {
  // Over 30 s: filling 2 MB takes many posts, then a restart, and the thanked leads wait for their
  // retries on the real schedule (from 1-2 s, doubling) after failing while the disk was full.
  test.setTimeout(120_000);
  const dir = dataDir();
  mountTmpfs(dir, "2m");
  const fake = await startFakeFormService({ port: opsPort(80) });
  fake.setMode("fail500");
  // FORM_TIMEOUT_MS as by default: the service answers at once, and a shorter deadline, counted on a
  // server its own synchronous writes hold up, passes on a slow machine before the answer is read.
  const env = keyed(fake, dir);
  const first = serve(opsPort(70), env);
  let second: ReturnType<typeof serve> | undefined;
  try {
    await first.listening;
    // Leave about 100 KB, then post 5 KB leads, each from a client of its own, until well past full.
    const filler = fill(dir, 100_000);
    const thanked: string[] = [];
    const refused: string[] = [];
    for (let i = 0; i < 40 && refused.length < 5; i++) {
      const token = `diskfull-${i}-`;
      const answer = await postContact(first.url, `${token} ${"Our project, described at length. ".repeat(140)}`, { localAddress: `127.0.1.${i + 1}` });
      if (answer.status === 303) thanked.push(token);
      else {
        expect(answer.status, token).toBe(503);
        expect(answer.body, token).toContain(messages.contactFailed);
        refused.push(token);
      }
    }
    expect(thanked.length, "some leads were stored before the disk filled").toBeGreaterThan(0);
    expect(refused.length, "the full disk refused leads").toBe(5);
    test.info().annotations.push({ type: "thanked before the disk was full", description: String(thanked.length) });
    await expect.poll(() => events(first.stdout()).filter((e) => e.event === "lead_not_stored").length).toBe(refused.length);
    first.child.kill("SIGKILL");
    await first.exited;

    rmSync(filler);
    fake.setMode("ok");
    second = serve(opsPort(70), env);
    await second.listening;
    await deliveredOnce(fake, thanked, { within: 60_000 });
    expect(
      refused.map((t) => fake.received(t).length),
      "never stored, never sent",
    ).toEqual(refused.map(() => 0));
  } finally {
    first.kill();
    second?.kill();
    await Promise.all([first.exited, second?.exited]);
    await fake.close();
    unmountTmpfs(dir);
  }
});

test("a store the server cannot read stops the start with one JSON line and exit 1, its bytes unchanged; once fixed, all its leads are delivered once", async () => {
  // Over 30 s: three server starts (stored, refused, fixed), and the fixed one delivers leads that
  // already failed, on the real retry schedule.
  test.setTimeout(90_000);
  const dir = dataDir();
  const db = join(dir, "leads.db");
  const fake = await startFakeFormService({ port: opsPort(81) });
  fake.setMode("fail500");
  const env = keyed(fake, dir);
  const first = serve(opsPort(71), env);
  let refused: ReturnType<typeof serve> | undefined;
  let fixed: ReturnType<typeof serve> | undefined;
  try {
    await first.listening;
    const tokens = ["unread-1", "unread-2", "unread-3"];
    for (const [i, token] of tokens.entries())
      expect((await postContact(first.url, `Keep me (${token}).`, { localAddress: `127.0.2.${i + 1}` })).status).toBe(303);
    await expect.poll(() => tokens.every((t) => fake.received(t).length > 0)).toBe(true);
    first.child.kill("SIGKILL"); // the WAL still holds them
    await first.exited;

    // The header damaged in the file and in the WAL, which holds a newer page 1 (the start's own
    // writes), so SQLite cannot read it from either.
    const good = readFileSync(db);
    const wal = readFileSync(`${db}-wal`);
    writeFileSync(db, Buffer.concat([Buffer.from("not SQLite here!"), good.subarray(16)]));
    writeFileSync(`${db}-wal`, Buffer.concat([Buffer.from("not a WAL header"), wal.subarray(16)]));
    const before = [sha(db), sha(`${db}-wal`)];
    refused = serve(opsPort(71), env);
    const exit = await refused.exited;
    expect(exit.code).toBe(1);
    expect(refused.stdout()).not.toContain('"event":"start"');
    const lines = events(refused.stdout()).filter((e) => e.level === "error");
    expect(lines).toEqual([expect.objectContaining({ event: "lead_store_unusable", store: db })]);
    expect([sha(db), sha(`${db}-wal`)], "the store's bytes").toEqual(before);

    writeFileSync(db, Buffer.concat([good.subarray(0, 16), readFileSync(db).subarray(16)]));
    writeFileSync(`${db}-wal`, Buffer.concat([wal.subarray(0, 16), readFileSync(`${db}-wal`).subarray(16)]));
    fake.setMode("ok");
    fixed = serve(opsPort(71), env);
    await fixed.listening;
    await deliveredOnce(fake, tokens);
  } finally {
    first.kill();
    refused?.kill();
    fixed?.kill();
    await fake.close();
  }
});

test("an owner paused (SIGSTOP) for 15 s, a second server on the same folder, then both take leads: every thanked lead arrives exactly once", async () => {
  // Over 30 s: the owner is paused for 15 s on purpose, the leads that failed meanwhile go out on
  // the real retry schedule, and 5 s more catch a second send.
  test.setTimeout(120_000);
  const dir = dataDir();
  const fake = await startFakeFormService({ port: opsPort(82) });
  fake.setMode("fail500", undefined, "paused-pending");
  const env = keyed(fake, dir, { FORM_TIMEOUT_MS: "2000" });
  const a = serve(opsPort(72), env);
  let b: ReturnType<typeof serve> | undefined;
  try {
    await a.listening;
    expect((await postContact(a.url, "Before the pause (paused-a1).", { localAddress: "127.0.3.1" })).status).toBe(303);
    expect((await postContact(a.url, "Still failing (paused-pending).", { localAddress: "127.0.3.2" })).status).toBe(303);
    await expect.poll(() => fake.accepted("paused-a1").length + Math.min(1, fake.received("paused-pending").length)).toBe(2);
    // The fault: a pause of 15 s between two writes, twice the lease of any claim it holds
    // (FORM_TIMEOUT_MS + 5 s), so it wakes with its claims run out and the other server sending
    // what it had. (Paused mid-write, it would keep the other server from storing anything.)
    await pauseBetweenWrites(a.child, dir);
    await sleep(15_000);
    fake.setMode("ok", undefined, "paused-pending");
    b = serve(opsPort(73), env);
    await b.listening;
    for (const [i, token] of ["paused-b1", "paused-b2"].entries())
      expect((await postContact(b.url, `While paused (${token}).`, { localAddress: `127.0.3.${10 + i}` })).status).toBe(303);
    a.child.kill("SIGCONT");
    const tokens = ["paused-a1", "paused-pending", "paused-b1", "paused-b2", "paused-a2", "paused-b3"];
    expect((await postContact(a.url, "After the pause (paused-a2).", { localAddress: "127.0.3.20" })).status).toBe(303);
    expect((await postContact(b.url, "After the pause (paused-b3).", { localAddress: "127.0.3.21" })).status).toBe(303);
    // 5 s: the woken server's first look and both servers' next (every 2 s) and a retry (1-2 s).
    await deliveredOnce(fake, tokens, { within: 60_000, settle: 5_000 });
  } finally {
    a.child.kill("SIGCONT");
    a.kill();
    b?.kill();
    await fake.close();
  }
});

test("invisible characters never reach the form service, and a replayed form makes one lead with one reference", async () => {
  const fake = await startFakeFormService({ port: opsPort(83) });
  const dir = dataDir();
  const server = serve(opsPort(74), keyed(fake, dir));
  try {
    await server.listening;
    const name = "Ada\u200b Love\u00adlace\u{e0041}\u{e0042}\u3164\ufe0f\u202e";
    const message = "Hidden\u200d text\u{e0069}\u{e0067} here\u2060 (invisible-test).";
    for (let i = 0; i < 3; i++) expect((await postContact(server.url, message, { name, localAddress: "127.0.4.1" })).status).toBe(303);
    await expect.poll(() => fake.accepted("invisible-test").length).toBe(1);
    // Each post is decided (stored or a duplicate) before its answer; a second lead would be sent
    // by the look its accept starts. So: once every decision is in the log and the record has
    // nothing pending, every lead the three posts made has reached the service.
    const decided = () => events(server.stdout()).filter((e) => e.event === "lead_stored" || e.event === "lead_duplicate").length;
    await expect.poll(decided, { message: "the three posts' lines" }).toBe(3);
    await expect.poll(async () => (JSON.parse((await leadsCommand(dir)("status")).stdout) as { pending: number }).pending).toBe(0);
    const sent = fake.received("invisible-test") as Record<string, string>[];
    expect(sent, "one lead for three posts of the same form").toHaveLength(1);
    expect(sent[0]!.from_name).toBe("Ada Lovelace");
    for (const value of Object.values(sent[0]!)) expect(String(value)).not.toMatch(/[\p{Default_Ignorable_Code_Point}\p{Cf}]/u);
    const stored = events(server.stdout()).filter((e) => e.event === "lead_stored");
    const duplicates = events(server.stdout()).filter((e) => e.event === "lead_duplicate");
    expect([stored.length, duplicates.map((e) => e.id)]).toEqual([1, [stored[0]!.id, stored[0]!.id]]);
  } finally {
    server.kill();
    await fake.close();
  }
});
