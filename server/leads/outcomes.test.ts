/** Outcomes by reference on SQLite and a real PostgreSQL (decision 0053): kept with the lead, past it, erased to a count; Zoho CRM's read back. */
import { afterEach, describe, expect, it } from "vitest";
import { FUNNEL_KEEP_DAYS } from "~/content/privacy";
import { ENGINES, leadDatabases } from "../../tests/support/engines";
import { startFakeZohoCrm, type FakeZohoCrm } from "../../tests/support/fake-zoho-crm";
import type { Db } from "../db";
import { dayOf } from "../funnel";
import { readCrmOutcomes } from "./crm-outcomes";
import { outcomes } from "./outcomes";
import { leadStore, prepareStore } from "./store";
import type { Lead } from "./types";
import { createZohoTransport, type ZohoSettings } from "./zoho-crm";

const spring = { kind: "campaign", source: "newsletter", medium: "email", campaign: "spring" } as const;
const lead = (text: string, source?: Lead["source"]): Lead => ({ kind: "contact", subject: "s", fromName: "Ada", replyTo: "ada@example.com", text, source });
const T = Date.parse("2026-11-23T10:00:00Z");
const DAY = 86_400_000;
const { place, open } = leadDatabases();

let zoho: FakeZohoCrm | undefined;
afterEach(async () => void (await zoho?.close()));

async function storeOn(db: Db) {
  await prepareStore(db);
  return { db, store: leadStore(db), kept: outcomes(db) };
}

describe.each(ENGINES)("outcomes (%s)", (engine) => {
  it("written with the lead (a duplicate form adds none), marked won or lost and corrected by running again, read per day, source and device", async () => {
    const { store, kept } = await storeOn(open(await place(engine)));
    await store.insert(lead("one", spring), { id: "20261123-AAAAAAAA", key: "a", now: T, perHour: 60, device: "phone" });
    expect((await store.insert(lead("one", spring), { id: "20261123-BBBBBBBB", key: "a", now: T + 1, perHour: 60, device: "phone" })).duplicate).toBe(true);
    await store.insert(lead("old"), { id: "20261123-CCCCCCCC", key: "c", now: T, perHour: 60 });
    expect(await kept.read(dayOf(T), dayOf(T))).toEqual([]); // nothing decided yet
    expect(await kept.mark("20261123-AAAAAAAA", "won", 85_000, T + DAY)).toBe(1);
    expect(await kept.mark("20261123-CCCCCCCC", "lost", null, T + DAY)).toBe(1);
    expect(await kept.mark("20261123-BBBBBBBB", "won", null, T + DAY)).toBe(0);
    const read = await kept.read(dayOf(T), dayOf(T));
    expect(read.sort((a, b) => a.outcome.localeCompare(b.outcome))).toEqual([
      { day: "2026-11-23", source: "unknown", device: "unknown", outcome: "lost", value: null },
      { day: "2026-11-23", source: "newsletter/email/spring", device: "phone", outcome: "won", value: 85_000 },
    ]);
    await kept.mark("20261123-AAAAAAAA", "won", 90_000, T + 2 * DAY);
    await kept.mark("20261123-CCCCCCCC", "won", null, T + 2 * DAY);
    expect((await kept.read(dayOf(T), dayOf(T))).map((o) => `${o.outcome} ${o.value}`).sort()).toEqual(["won 90000", "won null"]);
    expect(await kept.read(dayOf(T + DAY), dayOf(T + DAY))).toEqual([]);
  });

  it(`kept ${FUNNEL_KEEP_DAYS} days, past the lead's own row, then deleted by the store's cleanup; a person's erasure leaves a count no reference can mark`, async () => {
    const { db, store, kept } = await storeOn(open(await place(engine)));
    await store.insert(lead("kept"), { id: "20261123-AAAAAAAA", key: "a", now: T, perHour: 60 });
    await store.insert(lead("erased"), { id: "20261123-EEEEEEEE", key: "e", now: T, perHour: 60 });
    await store.claimDue(T, 10, 30_000);
    await store.delivered("20261123-AAAAAAAA", T, 30 * DAY);
    await store.purge(T + 31 * DAY, 30 * DAY);
    expect(await store.get("20261123-AAAAAAAA")).toBeUndefined();
    expect(await kept.mark("20261123-AAAAAAAA", "won", 1_000, T + 40 * DAY)).toBe(1);
    await kept.mark("20261123-EEEEEEEE", "won", 7_000, T + 39 * DAY);
    await store.erase("20261123-EEEEEEEE");
    // Nor the moment it was decided, which beside its day, source and device could single the client out.
    expect(await db.all("SELECT day, outcome, value, reference, crm_record, decided_at FROM outcomes WHERE reference IS NULL")).toEqual([
      { day: dayOf(T), outcome: "won", value: 7_000, reference: null, crm_record: null, decided_at: null },
    ]);
    expect(await kept.mark("20261123-EEEEEEEE", "won", null, T + 40 * DAY)).toBe(0);
    expect(await kept.of("20261123-EEEEEEEE")).toBeUndefined();
    await kept.mark("20261123-AAAAAAAA", "lost", null, T + 41 * DAY);
    await store.purge(T + FUNNEL_KEEP_DAYS * DAY, 30 * DAY);
    expect(await kept.read(dayOf(T), dayOf(T))).toHaveLength(2);
    await store.purge(T + (FUNNEL_KEEP_DAYS + 1) * DAY, 30 * DAY);
    expect(await kept.read(dayOf(T), dayOf(T))).toEqual([]);
  });

  it("a lead stored before outcomes were kept gets its row when the store is next opened, its source from its text", async () => {
    const { db, store, kept } = await storeOn(open(await place(engine)));
    await store.insert(lead("old", spring), { id: "20261123-OOOOOOOO", key: "o", now: T, perHour: 60 });
    await db.run("DELETE FROM outcomes");
    await prepareStore(db);
    expect(await kept.mark("20261123-OOOOOOOO", "won", 5_000, T + DAY)).toBe(1);
    expect(await kept.read(dayOf(T), dayOf(T))).toEqual([
      { day: dayOf(T), source: "newsletter/email/spring", device: "unknown", outcome: "won", value: 5_000 },
    ]);
  });

  it("two processes never read the CRM at once: a claim holds until let go, or until its lease runs out on the lease clock", async () => {
    const where = await place(engine);
    let mono = 5_000;
    const on = async () => (await storeOn({ ...open(where), leaseNow: async () => mono })).store;
    const [a, b] = [await on(), await on()];
    const [first, second] = await Promise.all([a.claimRead(60_000), b.claimRead(60_000)]);
    expect([first, second].sort()).toEqual([false, true]);
    const [holder, other] = first ? [a, b] : [b, a];
    expect(await other.claimRead(60_000)).toBe(false);
    await holder.releaseRead();
    expect(await other.claimRead(60_000)).toBe(true);
    mono += 59_999;
    expect(await holder.claimRead(60_000)).toBe(false);
    mono += 1;
    expect(await holder.claimRead(60_000)).toBe(true);
  });
});

describe("Zoho CRM's outcomes read back", () => {
  const settings = (fake: FakeZohoCrm, wonStatuses: string[] = []): ZohoSettings => ({
    ...{ clientId: fake.clientId, clientSecret: fake.clientSecret, refreshToken: fake.refreshToken, accountsUrl: fake.url },
    ...{ referenceField: "Website_Reference", leadSource: "Website", fieldMap: {}, wonStatuses },
  });
  /** Leads stored and delivered to the fake, as the queue delivers them. */
  async function delivered(fake: FakeZohoCrm, ids: string[]) {
    const { db, store, kept } = await storeOn(open(await place("sqlite")));
    for (const id of ids) {
      await store.insert(lead(`lead ${id}`, spring), { id, key: id, now: Date.now(), perHour: 60, device: "desktop" });
      const sent = await createZohoTransport(settings(fake), 5_000).deliver({ ...lead(`lead ${id}`, spring), id, acceptedAt: Date.now() });
      if (!sent.ok) throw new Error(sent.reason);
      await store.claimDue(Date.now(), 10, 30_000);
      await store.delivered(id, Date.now(), 30 * DAY, sent.record);
    }
    return { db, kept };
  }
  const today = () => dayOf(Date.now());

  it("a lead converted in Zoho, or given a status ZOHO_WON_STATUSES names, is won (no value: Zoho's conversion names the deal, not its amount); the others stay as they were", async () => {
    zoho = await startFakeZohoCrm();
    const { db, kept } = await delivered(zoho, ["20261123-AAAAAAAA", "20261123-BBBBBBBB", "20261123-CCCCCCCC"]);
    zoho.convert("20261123-AAAAAAAA");
    zoho.set("20261123-BBBBBBBB", "Lead_Status", "Contract Signed");
    zoho.set("20261123-CCCCCCCC", "Lead_Status", "Contacted");
    expect(await readCrmOutcomes(db, settings(zoho, ["Contract Signed"]), 5_000)).toEqual({ asked: 3, won: 2 });
    expect(await kept.read(today(), today())).toEqual([
      { day: today(), source: "newsletter/email/spring", device: "desktop", outcome: "won", value: null },
      { day: today(), source: "newsletter/email/spring", device: "desktop", outcome: "won", value: null },
    ]);
    // Without the setting only a converted lead counts; a won lead is not asked about again.
    expect(await readCrmOutcomes(db, settings(zoho), 5_000)).toEqual({ asked: 1, won: 0 });
  });

  it("a read while another process's claim holds reads nothing; Zoho refusing the token marks nothing and says why", async () => {
    zoho = await startFakeZohoCrm();
    const { db } = await delivered(zoho, ["20261123-AAAAAAAA"]);
    zoho.convert("20261123-AAAAAAAA");
    const other = leadStore(db);
    expect(await other.claimRead(60_000)).toBe(true);
    expect(await readCrmOutcomes(db, settings(zoho), 5_000)).toEqual({ busy: true });
    await other.releaseRead();
    expect(await readCrmOutcomes(db, { ...settings(zoho), refreshToken: "1000.revoked" }, 5_000)).toEqual({ failed: "zoho:invalid_code", status: 200 });
    expect(await readCrmOutcomes(db, settings(zoho), 5_000)).toEqual({ asked: 1, won: 1 });
  });
});
