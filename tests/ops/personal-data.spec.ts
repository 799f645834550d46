/**
 * A person's request (POPIA) as an operator meets it: `npm run -s leads -- find` and `erase` run
 * beside a running server with its SQLite store open, without a terminal, as a script or
 * `docker exec` without -t runs them. opsPort 130-131.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { dataDir, keyed, leadsCommand, postContact } from "../support/server";
import { opsPort } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { fakeService, site } = startedByEachTest();

// A command resolves only on exit code 0: it rejects with the code and what it printed otherwise.
const bytesOf = (file: string) => readFile(file, "latin1").catch(() => ""); // the WAL, once emptied, is gone

test("find and erase a person's delivered message, the draft of one with a mistake and the receipt, in the store and the outbox while the server runs; erase's second look finds nothing, and no file holds them", async () => {
  const dir = dataDir();
  // No key: each message is delivered to the outbox, a file in the data folder.
  const server = site(opsPort(130), { DATA_DIR: dir });
  const leads = leadsCommand(dir, {}, { npm: true });
  const outbox = join(dir, "outbox.jsonl");
  await server.listening;
  const thandi = { name: "Thandi Nkosi", email: "thandi.nkosi@example.co.za" };
  // Sent: a lead, and a receipt of its reference for her browser.
  expect((await postContact(server.url, "Our confidential launch (popia-thandi).", thandi)).status).toBe(303);
  // Without its message: what she typed waits in a draft for her browser, with the mistake.
  expect((await postContact(server.url, "", thandi)).headers.location).toMatch(/^\/\?contact=/);
  expect((await postContact(server.url, "Someone else's plans (popia-ada).")).status).toBe(303);
  await expect.poll(async () => (await bytesOf(outbox)).split("\n").length - 1, { timeout: 10_000 }).toBe(2);
  const reference = (JSON.parse(readFileSync(outbox, "utf8").split("\n")[0]!) as { id: string }).id;

  const found = await leads("find", " Thandi.Nkosi@EXAMPLE.co.za", reference);
  expect(found.stdout).toMatch(new RegExp(`^4 record\\(s\\) hold thandi\\.nkosi@example\\.co\\.za \\(email\\), ${reference} \\(reference\\):\\n`));
  expect(found.stdout).toContain(`\nleads\t${reference}\tcontact\tdelivered\t`);
  expect(found.stdout).toMatch(/\ndrafts\t-\tcontact draft\tdraft\t\texpires in 60m\n/);
  expect(found.stdout).toMatch(new RegExp(`\ndrafts\t${reference}\treceipt\tsent\t\texpires in 60m\n`));
  expect(found.stdout).toMatch(new RegExp(`\noutbox\t${reference}\tcontact\tdelivered\t.*\tline 1\n`));
  expect(found.stdout).toContain("note: Only this data folder is looked in");

  // Nothing the agency has yet to receive: erased without a question, though there is no terminal to ask on.
  const erased = await leads("erase", "thandi.nkosi@example.co.za", reference);
  expect(erased.stderr).toBe("");
  expect(erased.stdout).toMatch(/^erased 4 record\(s\) holding thandi\.nkosi@example\.co\.za \(email\), /);
  // Its own second look, a find after erasing, finds nothing.
  expect(erased.stdout).toContain("\nA second look finds nothing.\n");

  // The server still has the database open: what is in its files' bytes is what erase left.
  const files = (await Promise.all([join(dir, "leads.db"), join(dir, "leads.db-wal"), outbox].map(bytesOf))).join("\n");
  expect(/popia-thandi|Thandi|thandi\.nkosi/.test(files), "her words, name or address in the files").toBe(false);
  expect(files.includes("popia-ada")).toBe(true);
  // The server goes on: another message is stored and delivered after the erased line.
  expect((await postContact(server.url, "Later (popia-later).")).status).toBe(303);
  await expect.poll(async () => (await bytesOf(outbox)).includes("popia-later"), { timeout: 10_000 }).toBe(true);
  expect(readFileSync(outbox, "utf8").split("\n")[0]).toMatch(/^\{"erased":"\d{4}-\d\d-\d\d"\} +$/);
});

test("without a terminal, erase refuses to erase a lead the agency has not received, and changes nothing; with --yes it erases it", async () => {
  const fake = await fakeService();
  fake.setMode("unauthorized"); // a wrong key: the lead is parked, never received
  const dir = dataDir();
  const server = site(opsPort(131), keyed(fake, dir));
  // As in a container, the command has the server's settings: it names the form service.
  const leads = leadsCommand(dir, keyed(fake, dir));
  await server.listening;
  expect((await postContact(server.url, "Parked plans (popia-parked).", { email: "thandi@example.co.za" })).status).toBe(303);
  await expect.poll(() => server.stdout()).toContain('"event":"lead_parked"');

  const refusal =
    "leads: 1 of these leads has not reached the agency yet: erased, it never will. Run this on a terminal to be asked, or add --yes. Nothing was erased.\n";
  await expect(leads("erase", "thandi@example.co.za")).rejects.toMatchObject({ code: 2, stdout: "", stderr: refusal });
  // The lead erase --yes then lists is the one the refusal left as it was: still parked.
  const erased = await leads("erase", "--yes", "thandi@example.co.za");
  expect(erased.stdout).toMatch(/\nleads\t\d{8}-[0-9A-Z]{8}\tcontact\tparked\t/);
  expect(erased.stdout).toContain(`note: As set now, Web3Forms emails each delivered lead to`);
  expect(erased.stdout).toContain("\nA second look finds nothing.\n");
});
