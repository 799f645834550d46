import { afterEach, describe, expect, it, vi } from "vitest";
import { parseState, resetState, type WizardState } from "./state";

const answers: WizardState = { ...resetState(), step: 5, service: "seo", timeframe: "urgent", description: "Local SEO", email: "a@b.co" };

/** A fresh copy of the module, as a new page load gets it. */
const load = async () => {
  vi.resetModules();
  return import("./session");
};

afterEach(() => vi.unstubAllGlobals());

describe("the wizard's saved answers", () => {
  // Kept across a reload, and forgotten after a send: tests/failed-send.spec.ts and calculator-steps.spec.ts, in a browser.
  it("are read as none when the tab's storage holds something else", async () => {
    const store = new Map<string, string>();
    vi.stubGlobal("sessionStorage", { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v) });
    (await load()).saveAnswers(answers);
    for (const junk of ["not json", "42", '"state.step"', "[1,2]"]) {
      store.set([...store.keys()][0]!, junk);
      expect(parseState((await load()).savedAnswers())).toEqual(resetState());
    }
  });

  it("stay in memory when the browser refuses storage (all cookies blocked)", async () => {
    const refuse = () => {
      throw new DOMException("The operation is insecure.", "SecurityError");
    };
    vi.stubGlobal("sessionStorage", { getItem: refuse, setItem: refuse });
    const session = await load();
    expect(session.savedAnswers()).toEqual({});
    session.saveAnswers(answers);
    expect(parseState(session.savedAnswers())).toEqual(answers);
  });
});
