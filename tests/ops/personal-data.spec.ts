/**
 * A person's request (POPIA), as an operator meets it: a real server from build/ keeps running,
 * its lead store open, while `npm run leads -- find` and `erase` (personal-data.ts) run beside it
 * as separate processes, without a terminal, as a script or `docker exec` without -t runs them.
 * opsPort 130-132 (stop.spec has 170-179).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { startFakeFormService } from "../support/fake-form-service";
import { dataDir, keyed, leadsCommand, postContact, serve } from "../support/server";
import { opsPort } from "../support/sites";

/** What the command printed and its exit code: execFile rejects a non-zero exit, with both on the error. */
const ran = (command: Promise<{ stdout: string; stderr: string }>) =>
  command.then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? "", stderr: error.stderr ?? "" }),
  );

const bytesOf = (file: string) => {
  try {
    return readFileSync(file).toString("latin1");
  } catch {
    return ""; // the WAL, once emptied and gone
  }
};

test("find and erase a person's delivered message in the store and the outbox while the server runs; a second find finds nothing, and no file holds it", async () => {
  const dir = dataDir();
  // No key: each message is delivered to the outbox, a file in the data folder.
  const server = serve(opsPort(130), { DATA_DIR: dir });
  const leads = leadsCommand(dir);
  const outbox = join(dir, "outbox.jsonl");
  try {
    await server.listening;
    expect(
      (await postContact(server.url, "Our confidential launch (popia-thandi).", { name: "Thandi Nkosi", email: "thandi.nkosi@example.co.za" })).status,
    ).toBe(303);
    expect((await postContact(server.url, "Someone else's plans (popia-ada).")).status).toBe(303);
    await expect.poll(() => bytesOf(outbox).split("\n").length - 1, { timeout: 10_000 }).toBe(2);

    const found = await ran(leads("find", " Thandi.Nkosi@EXAMPLE.co.za"));
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(/^2 record\(s\) hold thandi\.nkosi@example\.co\.za \(email\):\n/);
    expect(found.stdout).toMatch(/\nleads\.db\t\d{8}-[0-9A-Z]{8}\tcontact\tdelivered\t/);
    expect(found.stdout).toMatch(/\noutbox\t\d{8}-[0-9A-Z]{8}\tcontact\tdelivered\t.*\tline 1\n/);
    expect(found.stdout).toContain("note: Drafts and receipts are kept in the server's memory (REDIS_URL is unset)");

    // Delivered: erased without a question, though there is no terminal to ask on.
    const erased = await ran(leads("erase", "thandi.nkosi@example.co.za"));
    expect(erased.stderr).toBe("");
    expect(erased.code).toBe(0);
    expect(erased.stdout).toMatch(/^erased 2 record\(s\) holding thandi\.nkosi@example\.co\.za \(email\):\n/);
    expect(erased.stdout).toContain("\nA second look finds nothing.\n");
    expect((await ran(leads("find", "thandi.nkosi@example.co.za"))).stdout).toMatch(/^nothing here holds thandi\.nkosi@example\.co\.za \(email\)\n/);

    // The server still has the database open: what is in its files' bytes is what erase left.
    const files = [join(dir, "leads.db"), join(dir, "leads.db-wal"), outbox].map(bytesOf).join("\n");
    expect(/popia-thandi|Thandi|thandi\.nkosi/.test(files), "her words or address in the files").toBe(false);
    expect(files.includes("popia-ada")).toBe(true);
    // The server goes on: another message is stored and delivered after the erased line.
    expect((await postContact(server.url, "Later (popia-later).")).status).toBe(303);
    await expect.poll(() => bytesOf(outbox).includes("popia-later"), { timeout: 10_000 }).toBe(true);
    expect(readFileSync(outbox, "utf8").split("\n")[0]).toMatch(/^\{"erased":"\d{4}-\d\d-\d\d"\} +$/);
  } finally {
    server.kill();
  }
});

test("without a terminal, erase refuses to erase a lead the agency has not received, and changes nothing; with --yes it erases it", async () => {
  const fake = await startFakeFormService({ port: opsPort(132) });
  fake.setMode("unauthorized"); // a wrong key: the lead is parked, never received
  const dir = dataDir();
  const server = serve(opsPort(131), keyed(fake, dir));
  // As in a container, the command has the server's settings: it names the form service.
  const leads = leadsCommand(dir, keyed(fake, dir));
  try {
    await server.listening;
    expect((await postContact(server.url, "Parked plans (popia-parked).", { email: "thandi@example.co.za" })).status).toBe(303);
    await expect.poll(async () => (await leads("list")).stdout).toMatch(/\tcontact\tparked\t/);

    const refused = await ran(leads("erase", "thandi@example.co.za"));
    expect(refused).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "leads: 1 of these leads has not reached the agency yet: erased, it never will. Run this on a terminal to be asked, or add --yes. Nothing was erased.\n",
    });
    expect((await leads("list")).stdout).toMatch(/\tcontact\tparked\t/);

    const erased = await ran(leads("erase", "--yes", "thandi@example.co.za"));
    expect(erased.code).toBe(0);
    expect(erased.stdout).toMatch(/\nleads\.db\t\d{8}-[0-9A-Z]{8}\tcontact\tparked\t/);
    expect(erased.stdout).toContain(`note: As set now, Web3Forms emails each delivered lead to`);
    expect((await leads("list")).stdout.trim().split("\n")).toHaveLength(1); // the header alone
  } finally {
    server.kill();
    await fake.close();
  }
});
