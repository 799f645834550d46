import { describe, expect, it } from "vitest";
import { contactLead } from "./lead.server";

describe("contactLead", () => {
  it("lists name, email, the service's label and the message, its later lines quoted", () => {
    expect(contactLead({ name: "Ada", email: "ada@example.com", service: "low-code", message: "Hi\nthere" })).toEqual({
      kind: "contact",
      subject: "New contact form message from Ada",
      fromName: "Ada",
      replyTo: "ada@example.com",
      text: "Name: Ada\nEmail: ada@example.com\nService: Low-code development\nMessage: Hi\n  > there",
      fields: { name: "Ada", service: "Low-code development", message: "Hi\nthere" },
    });
  });

  it("keeps the name on one line in the subject", () => {
    expect(contactLead({ name: "Ada\u0085Bcc: x", email: "ada@example.com", service: "seo", message: "Hi" }).subject).toBe(
      "New contact form message from Ada Bcc: x",
    );
  });
});

describe("contactLead's sender", () => {
  it("a name that passes for the agency or carries an address is sent as 'Website visitor', and stays in the message", () => {
    const lead = contactLead({
      name: "Kopano Digital Billing <billing@kopanodigital.co.za>",
      email: "x@example.com",
      service: "seo",
      message: "Pay this invoice",
    });
    expect([lead.fromName, lead.subject]).toEqual(["Website visitor", "New contact form message from Website visitor"]);
    expect(lead.text).toContain("Name: Kopano Digital Billing <billing@kopanodigital.co.za>");
  });
});
