import * as z from "zod/mini";
import { describe, expect, it } from "vitest";

import { emailSchema, fieldErrors, optionalText, phoneSchema, requiredText } from "./fields";
import { calculatorText } from "~/content/calculator";
import { characters, LIMITS } from "./limits";

const messages = (schema: z.ZodMiniType, value: unknown): string[] | "ok" => {
  const r = schema.safeParse(value);
  return r.success ? "ok" : r.error.issues.map((i) => i.message);
};

describe("emailSchema", () => {
  it("accepts and trims a valid address", () => {
    expect(emailSchema.parse("  ada@example.com ")).toBe("ada@example.com");
    expect(messages(emailSchema, "first.last+tag@sub.example.co.za")).toBe("ok");
  });
  it.each([
    ...[undefined, "", "   "].map((value) => [value, "Please enter your email address"]),
    ...["ada", "ada@", "ada@example", "ada @example.com"].map((value) => [value, "Please enter a valid email address"]),
    [`${"a".repeat(64)}@${"b".repeat(186)}.com`, "Email address must be at most 254 characters"],
    [`${"a".repeat(65)}@example.com`, "Please enter a valid email address"], // a mailbox name holds 64 (RFC 5321)
  ])("rejects %j with one clear message", (value, message) => {
    expect(messages(emailSchema, value)).toEqual([message]);
  });
});

describe("phoneSchema", () => {
  it.each(["+27 (11) 555-1234", "0115551234", "1234567", "  011 555 1234  ", "1".repeat(30)])("accepts %j", (v) => {
    expect(messages(phoneSchema, v)).toBe("ok");
  });
  it("trims", () => {
    expect(phoneSchema.parse(" 011 555 1234 ")).toBe("011 555 1234");
  });
  it.each([
    ...[undefined, "", "   "].map((value) => [value, "Please enter your phone number"]),
    ...["123456", "+(1) 2-3-4 5"].map((value) => [value, "Phone number must contain at least 7 digits"]),
    ...["011 555 123x", "011.555.1234", "011\n5551234"].map((value) => [value, "Phone number may only contain digits, spaces and + ( ) -"]),
    ["1".repeat(31), "Phone number must be at most 30 characters"],
  ])("rejects %j with one clear message", (value, message) => {
    expect(messages(phoneSchema, value)).toEqual([message]);
  });
});

describe("requiredText", () => {
  const s = requiredText(5, "Required!", "Too long!");
  it("trims before checking both bounds", () => {
    expect(s.parse("  abcde  ")).toBe("abcde");
    expect(messages(s, "\t \n")).toEqual(["Required!"]);
    expect(messages(s, "abcdef")).toEqual(["Too long!; this one has 6"]);
    expect(messages(s, 42)).toEqual(["Required!"]);
  });
});

describe("characters", () => {
  it("counts a text as the server keeps it: an emoji one, a line break one, invisible code points and the trimmed ends none", () => {
    expect(["🙂".length, characters("🙂")]).toEqual([2, 1]);
    expect(characters("a\nb")).toBe(3);
    expect(characters("Zoe\u0308")).toBe(3); // composed: ë
    expect(characters(" a\u200bb\u00ad ")).toBe(2);
    expect(characters("❤️")).toBe(1); // its variation selector is invisible
    expect(characters("🇿🇦 👍🏽")).toBe(5); // a flag, a skin tone: two each
  });

  it("is what the boxes say of their bound: the description's and the message's 5,000", () => {
    expect(calculatorText.descriptionBound).toBe(`At most ${LIMITS.description.toLocaleString("en")} characters.`);
    expect(LIMITS.message).toBe(LIMITS.description); // the contact form's box says the same words
  });

  it("is the check's measure: 5,000 characters with emoji pass, as a box's maxLength (5,010 units) would not; one more fails saying how many", () => {
    const text = `${"a".repeat(4_990)}${"🙂".repeat(10)}`;
    expect(text.length).toBe(5_010);
    const description = optionalText(LIMITS.description, "Description must be at most 5,000 characters");
    expect(messages(description, text)).toBe("ok");
    expect(messages(description, `${text}🙂`)).toEqual(["Description must be at most 5,000 characters; this one has 5,001"]);
  });
});

describe("fieldErrors", () => {
  it("maps issues to their top-level field", () => {
    const schema = z.object({ a: requiredText(3, "A missing", "A long"), b: emailSchema });
    const r = schema.safeParse({ a: "", b: "nope" });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(fieldErrors(r.error)).toEqual({ a: ["A missing"], b: ["Please enter a valid email address"] });
  });
  it("puts errors about the whole value under the empty key", () => {
    const r = z.object({ a: z.string() }).safeParse("not an object");
    if (r.success) throw new Error("expected failure");
    expect(Object.keys(fieldErrors(r.error))).toEqual([""]);
  });
});
