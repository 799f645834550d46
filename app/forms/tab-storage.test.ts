import { afterEach, describe, expect, it, vi } from "vitest";

/** A fresh copy of the module, as a new page load gets it. */
const load = async () => {
  vi.resetModules();
  return import("./tab-storage");
};

afterEach(() => vi.unstubAllGlobals());

describe("what a form keeps in the tab", () => {
  it("is kept per form: the contact form's text and the calculator's answers never overwrite each other", async () => {
    const store = new Map<string, string>();
    vi.stubGlobal("sessionStorage", { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => store.set(k, v) });
    const tab = await load();
    tab.keep("contact-form", { name: "Lerato", message: "A booking system" });
    tab.keep("calculator-wizard", { "state.step": "3" });
    tab.keep("contact-form", null);
    const next = await load();
    expect(next.kept("contact-form")).toEqual({});
    expect(next.kept("calculator-wizard")).toEqual({ "state.step": "3" });
  });
});
