import { describe, expect, it } from "vitest";

import { HONEYPOT_FIELD, isBot } from "./honeypot.server";

function form(entries: Array<[string, string | Blob]>): FormData {
  const fd = new FormData();
  for (const [name, value] of entries) fd.append(name, value);
  return fd;
}

describe("isBot", () => {
  it("uses a field name bots like to fill", () => {
    expect(HONEYPOT_FIELD).toBe("website");
  });

  it.each([
    ["field absent", [["name", "Ada"]], false],
    ["field empty", [[HONEYPOT_FIELD, ""]], false],
    ["field only whitespace", [[HONEYPOT_FIELD, "  \n"]], false],
    ["field filled", [[HONEYPOT_FIELD, "http://spam.example"]], true],
    ["second copy filled", [[HONEYPOT_FIELD, ""], [HONEYPOT_FIELD, "x"]], true],
    ["a file instead of text", [[HONEYPOT_FIELD, new Blob(["x"])]], true],
  ] as Array<[string, Array<[string, string | Blob]>, boolean]>)("%s → %s", (_label, entries, bot) => {
    expect(isBot(form(entries))).toBe(bot);
  });
});
