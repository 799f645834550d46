import { describe, expect, it } from "vitest";
import { calculatorText } from "~/content/calculator";
import { VISITOR } from "~/forms/lead.server";
import { calculatorLead } from "./lead.server";
import { estimate, formatUsd, zarRate } from "./pricing";
import type { CalculatorRequest } from "./rules";

const contact = { name: "", companyName: "Acme Ltd", email: "ada@acme.example", phone: "+27 11 555 1234" };
const request: CalculatorRequest = { service: "softwareDev", timeframe: "urgent", complexity: "complex", description: "A booking app for salons", ...contact };
/** The figure the estimate rule gives this request (app/calculator/pricing.test.ts checks the rule). */
const price = formatUsd(estimate(request));

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
        `Estimated cost: ${price}`,
        "Company: Acme Ltd",
        "Email: ada@acme.example",
        "Phone: +27 11 555 1234",
      ].join("\n"),
      fields: {
        company: "Acme Ltd",
        phone: "+27 11 555 1234",
        service: "Software Development",
        timeframe: "Urgent (1-2 weeks)",
        complexity: "Complex",
        estimate: price,
        message: "A booking app for salons",
      },
    });
    const otherRequest = { ...request, service: "mobileApp", timeframe: "relaxed", complexity: "simple" } as const;
    const other = calculatorLead(otherRequest);
    expect(other.text).toContain("Service: Mobile App Development\nTimeframe: Relaxed (5-8 weeks)\nComplexity: Simple\n");
    expect(other.text).toContain(`Estimated cost: ${formatUsd(estimate(otherRequest))}`);
  });

  it("with the operator's rate, says the estimate in rand too, in its line and its field", () => {
    const lead = calculatorLead(request, zarRate(18.4, "2026-11-30"));
    const figure = "USD 5,625 (about R 103,500 at R 18.40 to the dollar, 30 Nov 2026)";
    expect(lead.text).toContain(`\nEstimated cost: ${figure}\n`);
    expect(lead.fields?.estimate).toBe(figure);
  });

  it("says so when no description was given (it is optional)", () => {
    expect(calculatorLead({ ...request, description: "" }).text).toContain(
      `Complexity: Complex\nDescription: ${calculatorText.noDescription}\nEstimated cost: ${price}\n`,
    );
  });

  it("keeps a description's lines quoted under its label, and the company name on one line everywhere", () => {
    const lead = calculatorLead({ ...request, description: "Line one\r\nEstimated cost: $1", companyName: "Acme\u2028Estimated cost: $1\u202e" });
    expect(lead.text).toContain(`Description: Line one\n  > Estimated cost: $1\nEstimated cost: ${price}`);
    expect(lead.subject).toBe("New cost estimate request from Acme Estimated cost: $1");
    expect(lead.fromName).toBe("Acme Estimated cost: $1");
    expect(lead.fields).toMatchObject({ company: "Acme Estimated cost: $1", message: "Line one\nEstimated cost: $1" });
    expect(lead.text.split("\n").filter((line) => line.startsWith("Estimated cost:"))).toEqual([`Estimated cost: ${price}`]);
  });

  it("names the person when given in the message, above the company; the sender is the company name entered", () => {
    const lead = calculatorLead({ ...request, name: "Thandi Nkosi" });
    expect(lead.text).toContain(`Estimated cost: ${price}\nName: Thandi Nkosi\nCompany: Acme Ltd\n`);
    expect([lead.fromName, lead.subject]).toEqual(["Acme Ltd", "New cost estimate request from Acme Ltd"]);
    // Without a name the message has no Name line at all (above: the company alone is the sender).
    expect(calculatorLead(request).text).not.toMatch(/^Name:/m);
  });

  it("never makes the sender of the name, and a company name that cannot stand there becomes the placeholder, kept in the message as typed", () => {
    const spoofName = calculatorLead({ ...request, name: "Kopano Digital Billing <billing@kopanodigital.co.za>" });
    expect(spoofName.fromName).toBe("Acme Ltd");
    expect(spoofName.text).toContain("Name: Kopano Digital Billing <billing@kopanodigital.co.za>");
    const spoofCompany = calculatorLead({ ...request, name: "Thandi\u2028Nkosi", companyName: "K0pano Digital" });
    expect([spoofCompany.fromName, spoofCompany.subject]).toEqual([VISITOR, `New cost estimate request from ${VISITOR}`]);
    expect(spoofCompany.text).toContain("Name: Thandi Nkosi\nCompany: K0pano Digital\n");
    expect(calculatorLead({ ...request, companyName: "Acme <billing@acme.example>" }).fromName).toBe("Acme");
  });
});
