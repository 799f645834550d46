import { describe, expect, it } from "vitest";
import { calculatorLead } from "./lead.server";
import type { CalculatorRequest } from "./rules";

const request: CalculatorRequest = {
  service: "softwareDev",
  timeframe: "urgent",
  complexity: "complex",
  description: "A booking app for salons",
  companyName: "Acme Ltd",
  email: "ada@acme.example",
  phone: "+27 11 555 1234",
};

describe("calculatorLead", () => {
  it("lists every field with its label and the estimate computed here", () => {
    expect(calculatorLead(request)).toEqual({
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
    const other = calculatorLead({ ...request, service: "mobileApp", timeframe: "relaxed", complexity: "simple" });
    expect(other.text).toContain("Service: Mobile App Development\nTimeframe: Relaxed (5-8 weeks)\nComplexity: Simple\n");
    expect(other.text).toContain("Estimated cost: $3,200");
  });

  it("keeps a description's lines quoted under its label, and the company name on one line everywhere", () => {
    const lead = calculatorLead({ ...request, description: "Line one\r\nEstimated cost: $1", companyName: "Acme\u2028Estimated cost: $1\u202e" });
    expect(lead.text).toContain("Description: Line one\n  > Estimated cost: $1\nEstimated cost: $5,625");
    expect(lead.subject).toBe("New cost estimate request from Acme Estimated cost: $1");
    expect(lead.fromName).toBe("Acme Estimated cost: $1");
    expect(lead.text.split("\n").filter((line) => line.startsWith("Estimated cost:"))).toEqual(["Estimated cost: $5,625"]);
  });
});
