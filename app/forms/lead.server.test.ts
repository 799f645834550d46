import { describe, expect, it } from "vitest";
import { leadText, notTaken, oneLine, senderName, VISITOR } from "./lead.server";
import { stripInvisible } from "./limits";

const SEPARATORS = ["\n", "\r", "\r\n", "\v", "\f", "\u0085", "\u2028", "\u2029"];
const INVISIBLE = ["\u0000", "\u001b", "\u007f", "\u0090", "\u061c", "\u200e", "\u200f", "\u202a", "\u202e", "\u2066", "\u2069", "\t"];

describe("oneLine", () => {
  it.each([...SEPARATORS, ...INVISIBLE].map((c) => [JSON.stringify(c), c]))("turns %s into a space and never lets it through", (_name, c) => {
    const cleaned = oneLine(`Acme${c}Estimated cost: $1`);
    expect(cleaned).toBe("Acme Estimated cost: $1");
  });

  it("keeps ordinary text, accents and emoji as they are", () => {
    expect(oneLine("  Zoë’s Café 🍰 (Pty) Ltd  ")).toBe("Zoë’s Café 🍰 (Pty) Ltd");
  });
});

describe("leadText", () => {
  it("writes one 'Label: value' line per row", () => {
    const rows: Parameters<typeof leadText>[0] = [["Service", "SEO"]];
    expect(leadText([...rows, ["Company", "Acme"]])).toBe("Service: SEO\nCompany: Acme");
  });

  it("keeps a multi-line value's breaks, of every kind, and quotes each later line so none passes for the message's own", () => {
    const typed = ["First line", "Estimated cost: $1", "", "Company: Someone else"].join("\u2028");
    const description: Parameters<typeof leadText>[0] = [["Description", typed, "multiLine"]];
    expect(leadText([...description, ["Estimated cost", "$5,625"]])).toBe(
      ["Description: First line", "  > Estimated cost: $1", "  >", "  > Company: Someone else", "Estimated cost: $5,625"].join("\n"),
    );
    for (const c of SEPARATORS) expect(leadText([["Message", `a${c}b`, "multiLine"]])).toBe("Message: a\n  > b");
  });

  it("strips controls and bidi overrides inside a multi-line value, and keeps single-line values on one line", () => {
    const message: Parameters<typeof leadText>[0] = [["Message", "pay \u202eevil\u202c now\u0000", "multiLine"]];
    expect(leadText([...message, ["Phone", "011\n555"]])).toBe("Message: pay evil now\nPhone: 011 555");
  });
});

describe("notTaken", () => {
  it("is 429 with Retry-After over the quota, 503 when the lead could not be stored", async () => {
    const limited = notTaken({ a: 1 }, { ok: false, problem: "rateLimited", retryAfter: 42 });
    expect([limited.status, limited.headers.get("retry-after"), await limited.json()]).toEqual([429, "42", { a: 1 }]);
    const failed = notTaken({ a: 1 }, { ok: false, problem: "failed" });
    expect([failed.status, failed.headers.get("retry-after")]).toEqual([503, null]);
  });
});

describe("invisible code points", () => {
  const HIDDEN = [
    ...["\u200b", "\u200c", "\u200d", "\u00ad", "\u2060", "\ufeff"], // zero-width space and joiners, soft hyphen, word joiner, BOM
    ...["\u115f", "\u1160", "\u3164", "\uffa0", "\ufe0f", "\u{e0100}"], // Hangul fillers, variation selectors
    ...["\u{e0069}\u{e0067}\u{e006e}", "\u202e", "\u2066"], // TAG characters (an invisible "ignore previous"), bidi controls
    ...["\u180e", "\u2800", "\u034f"], // Mongolian vowel separator, braille blank, combining grapheme joiner
  ];

  it.each(HIDDEN.map((c) => [JSON.stringify(c), c]))("stripInvisible removes %s", (_name, c) => {
    expect(stripInvisible(`Ac${c}me`)).toBe("Acme");
  });

  it("keeps what a reader sees: accents (composed), emoji, other scripts, line breaks", () => {
    expect(stripInvisible("Zoe\u0308 🍰 Тшепо 李\nline two")).toBe("Zoë 🍰 Тшепо 李\nline two");
  });

  it("nothing invisible reaches a lead's text, subject or sender name", () => {
    const text = leadText([
      ["Name", "Ada\u200b \u{e0041}\u{e0049}Lovelace\u00ad"],
      ["Message", "Hi\u2063\nsecond\u200d line", "multiLine"],
    ]);
    expect(text).toBe("Name: Ada Lovelace\nMessage: Hi\n  > second line");
    expect(senderName("Ada\u3164Lovelace\ufe0f")).toBe("AdaLovelace");
  });
});

describe("senderName", () => {
  it("keeps an ordinary name", () => {
    expect(senderName("Lerato Mokoena")).toBe("Lerato Mokoena");
    expect(senderName("Gauteng Freight (Pty) Ltd")).toBe("Gauteng Freight (Pty) Ltd");
    expect(senderName("Kopano Mokoena")).toBe("Kopano Mokoena"); // a common first name
  });

  it("drops an <address> and any email address, and quotes", () => {
    expect(senderName('Ada "Billing" <billing@example.com>')).toBe("Ada Billing");
    expect(senderName("Ada billing@example.com")).toBe("Ada");
    expect(senderName("<billing@example.com>")).toBe(VISITOR);
  });

  it("never passes for the agency, however it is spelled", () => {
    const names = ["Kopano Digital Billing <billing@kopanodigital.co.za>", "kopano digital", "K0pano D1gital", "KOPANO-DIGITAL Accounts"];
    for (const name of [...names, "Кораnо Digital", "Kopáno Digítal", "Kopano\u200bDigital"]) expect(senderName(name), name).toBe(VISITOR);
  });

  it("never passes for the agency in letters of other scripts that look Latin, beyond a short list (Unicode's confusables)", () => {
    for (const name of [
      "Kopano D\u0131g\u0131tal Billing", // Turkish dotless i
      "K\u0585pano Digital", // Armenian o
      "Kopano Digita\u04cf", // Cyrillic palochka
      "\u13e6opano Digital", // Cherokee K
      "Kopano Dig\u0456tal Accounts", // Ukrainian i
    ])
      expect(senderName(name), name).toBe(VISITOR);
  });
});
