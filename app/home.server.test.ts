import { randomUUID } from "node:crypto";
import type { AppLoadContext } from "@remix-run/node";
import type { DraftStore } from "~/context";
import { describe, expect, it } from "vitest";
import { calculatorAction } from "~/calculator/action.server";
import { estimate, formatUsd, zarRate } from "~/calculator/pricing";
import type { CalculatorRequest } from "~/calculator/rules";
import { resetState, stateToFields } from "~/calculator/state";
import { nextSteps, sentSummary, talkNow } from "~/content/calculator";
import { visitor, visitorOwner } from "~/forms/visitor.server";
import { loader } from "./home.server";
import { bookingHref } from "~/forms/draft.server";

const contact = { name: "", companyName: "Gauteng Freight", email: "ops@gautengfreight.co.za", phone: "+27 11 555 0101" };
const sent: CalculatorRequest = {
  service: "softwareDev",
  timeframe: "urgent",
  complexity: "complex",
  description: "A dispatch app for 40 drivers",
  ...contact,
};
/** The store's contract (server/drafts.ts keeps it, and is tested there): records by owner and id. */
function memoryDrafts(): DraftStore {
  const records = new Map<string, unknown>();
  return {
    save: async (owner, value) => {
      const id = randomUUID().replaceAll("-", "").slice(0, 22);
      records.set(`${owner}:${id}`, structuredClone(value));
      return id;
    },
    load: async (owner, id) => records.get(`${owner}:${id}`),
    delete: async (owner, id) => void records.delete(`${owner}:${id}`),
  };
}
const contextWith = () =>
  ({
    drafts: memoryDrafts(),
    sources: { names: new Set(), sites: [] },
    countVisit: async () => undefined,
    submitLead: async () => ({ ok: true, reference: "20261124-AB12CD34", first: true }),
  }) as unknown as AppLoadContext;
/** The home page's loader's receipt for `request`. */
const receiptOf = async (request: Request, context: AppLoadContext) =>
  ((await (await loader({ request, context, params: {} })).json()) as { receipt: unknown }).receipt;

/** Sends `sent` from step 5, then opens the thanks it redirects to, with the cookie it set. */
async function thanks(context: AppLoadContext) {
  const fields = { ...stateToFields({ ...resetState(), ...sent, step: 5, reached: 5 }), intent: "Send My Request" };
  const answer = await calculatorAction(new Request("http://localhost/?index", { method: "POST" }), fields, context);
  const location = answer.headers.get("Location")!;
  const cookie = answer.headers.get("Set-Cookie")!.split(";")[0]!;
  const request = new Request(new URL(location, "http://localhost"), { headers: { cookie } });
  return { location, receipt: await receiptOf(request, context), owner: await visitorOwner(request) };
}

describe("the thanks' receipt", () => {
  it("keeps the reference, a line on what was sent and its estimate page, and nothing the visitor typed", async () => {
    const context = contextWith();
    const { location, receipt, owner } = await thanks(context);
    expect(location).toMatch(/^\/\?sent=calculator&receipt=[\w-]{22}#wizard$/);
    const id = new URL(location, "http://localhost").searchParams.get("receipt")!;
    expect(receipt).toEqual({
      reference: "20261124-AB12CD34",
      summary: sentSummary("Software Development, Urgent (1-2 weeks), Complex", formatUsd(estimate(sent))),
      // The estimate's page with the receipt: this browser's own page of the request (estimate-page.server.ts).
      estimate: `/estimate?service=softwareDev&timeframe=urgent&complexity=complex&receipt=${id}`,
      next: `${nextSteps} ${talkNow}`,
    });
    const stored = JSON.stringify(await context.drafts.load(owner, id));
    expect(stored).toContain(String(estimate(sent)));
    for (const typed of [sent.description, sent.companyName, sent.email, sent.phone]) expect(stored).not.toContain(typed);
  });

  it("shows no line when the stored choices or figure do not check out", async () => {
    const context = contextWith();
    const { owner, headers } = await visitor(new Request("http://localhost/?index", { method: "POST" }));
    const cookie = headers["Set-Cookie"].split(";")[0]!;
    const choices = { service: "softwareDev", timeframe: "urgent", complexity: "complex" } as const;
    const kept = { reference: "20261124-AB12CD34", ...choices, estimate: estimate(choices) };
    for (const tampered of [
      { ...kept, estimate: 1 },
      { ...kept, service: "<b>x</b>" },
      { ...kept, estimate: String(kept.estimate) },
    ]) {
      const id = await context.drafts.save(owner, tampered);
      const request = new Request(`http://localhost/?sent=calculator&receipt=${id}`, { headers: { cookie } });
      expect(await receiptOf(request, context)).toEqual({ reference: "20261124-AB12CD34", next: `${nextSteps} ${talkNow}` });
    }
  });

  it("says what happens next even when the receipt cannot be read (another browser, cookies refused, expired)", async () => {
    const context = contextWith();
    const { location } = await thanks(context);
    expect(await receiptOf(new Request(new URL(location, "http://localhost")), context)).toEqual({ next: `${nextSteps} ${talkNow}` });
    expect(await receiptOf(new Request("http://localhost/?sent=contact"), context)).toBeNull();
  });

  it("with the operator's rate, says the figure in rand too", async () => {
    const context = { ...contextWith(), zar: zarRate(18.4, "2026-11-30") } as AppLoadContext;
    const { receipt } = await thanks(context);
    expect((receipt as { summary: string }).summary).toContain("USD 5,625 (about R 103,500 at R 18.40 to the dollar, 30 Nov 2026).");
  });
});

describe("bookingHref", () => {
  it("adds the reference where Cal.com (notes) and Calendly (a1) show it, keeping the page's own parameters", () => {
    const url = new URL(bookingHref("https://calendly.com/kopano/30min?month=2026-12", "20261124-AB12CD34"));
    expect(url.origin + url.pathname).toBe("https://calendly.com/kopano/30min");
    expect(Object.fromEntries(url.searchParams)).toEqual({ month: "2026-12", notes: "Reference 20261124-AB12CD34", a1: "20261124-AB12CD34" });
  });
});
