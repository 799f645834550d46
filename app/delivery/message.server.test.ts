import { describe, expect, it } from "vitest";

import type { CalculatorRequest } from "~/calculator/wizard";

import { calculatorMessage, contactMessage } from "./message.server";

const request: CalculatorRequest = {
  service: "softwareDev",
  timeframe: "urgent",
  complexity: "complex",
  description: "A booking app for salons",
  companyName: "Acme Ltd",
  email: "ada@acme.example",
  phone: "+27 11 555 1234",
};

describe("calculatorMessage", () => {
  it("lists every field with labels and the server-side estimate", () => {
    expect(calculatorMessage(request)).toEqual({
      kind: "calculator",
      subject: "New cost estimate request from Acme Ltd",
      fromName: "Acme Ltd",
      replyTo: "ada@acme.example",
      text: [
        "Service: Software Development",
        "Timeframe: Urgent (1-2 weeks)",
        "Complexity: Complex",
        "Description: A booking app for salons",
        "Estimated cost: $5,625",
        "Company: Acme Ltd",
        "Email: ada@acme.example",
        "Phone: +27 11 555 1234",
      ].join("\n"),
    });
  });

  it("computes the estimate from the choices", () => {
    const m = calculatorMessage({ ...request, service: "mobileApp", timeframe: "relaxed", complexity: "simple" });
    expect(m.text).toContain("Service: Mobile App Development\nTimeframe: Relaxed (5-8 weeks)\nComplexity: Simple\n");
    expect(m.text).toContain("Estimated cost: $3,200");
  });

  it("keeps a multi-line description under its label and single-line fields on one line", () => {
    const m = calculatorMessage({ ...request, description: "Line one\r\nLine two\n\nLine four", companyName: "Acme\r\nBcc: x" });
    expect(m.text).toContain("Description: Line one\n  Line two\n  \n  Line four\nEstimated cost:");
    expect(m.subject).toBe("New cost estimate request from Acme Bcc: x");
    expect(m.fromName).toBe("Acme Bcc: x");
    expect(m.text).toContain("\nCompany: Acme Bcc: x\n");
  });
});

describe("contactMessage", () => {
  it("lists name, email, service label and message", () => {
    expect(contactMessage({ name: "Ada", email: "ada@example.com", service: "low-code", message: "Hi\nthere" })).toEqual({
      kind: "contact",
      subject: "New contact form message from Ada",
      fromName: "Ada",
      replyTo: "ada@example.com",
      text: "Name: Ada\nEmail: ada@example.com\nService: Low-code development\nMessage: Hi\n  there",
    });
  });
});
