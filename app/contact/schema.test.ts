import { describe, expect, it } from "vitest";

import { CONTACT_SERVICES } from "~/content/services";
import { contactSchema, fieldErrors } from "./schema";

const valid = { name: "Ada Lovelace", email: "ada@example.com", service: "low-code", message: "Hello there" };

const errorsOf = (data: unknown) => {
  const r = contactSchema.safeParse(data);
  return r.success ? undefined : fieldErrors(r.error);
};

describe("contactSchema", () => {
  it("accepts a valid form and trims texts", () => {
    expect(contactSchema.parse({ ...valid, name: "  Ada ", message: " Hi \n", extra: "ignored" })).toEqual({ ...valid, name: "Ada", message: "Hi" });
    for (const { value } of CONTACT_SERVICES) expect(errorsOf({ ...valid, service: value })).toBeUndefined();
    expect(errorsOf({ ...valid, name: "n".repeat(100), message: "m".repeat(5000) })).toBeUndefined();
  });

  it("requires every field", () => {
    expect(errorsOf({})).toEqual({
      name: ["Please enter your name"],
      email: ["Please enter your email address"],
      service: ["Please choose a service"],
      message: ["Please enter a message"],
    });
    expect(errorsOf({ name: "  ", email: " ", service: "", message: "\n\t" })).toEqual({
      name: ["Please enter your name"],
      email: ["Please enter your email address"],
      service: ["Please choose a service"],
      message: ["Please enter a message"],
    });
  });

  it("rejects too long texts, a bad email and an unknown service", () => {
    expect(errorsOf({ ...valid, name: "n".repeat(101) })).toEqual({ name: ["Name must be at most 100 characters; this one has 101"] });
    expect(errorsOf({ ...valid, message: "m".repeat(5001) })).toEqual({ message: ["Message must be at most 5,000 characters; this one has 5,001"] });
    expect(errorsOf({ ...valid, email: "ada.example.com" })).toEqual({ email: ["Please enter a valid email address"] });
    expect(errorsOf({ ...valid, service: "softwareDev" })).toEqual({ service: ["Please choose a service"] });
    expect(errorsOf({ ...valid, service: "LOW-CODE" })).toEqual({ service: ["Please choose a service"] });
  });
});
