import type { Lead } from "~/context";
import { contactServiceLabel } from "~/content/services";
import { leadText, multiLine, oneLine, senderName } from "~/forms/lead.server";
import type { ContactRequest } from "./schema";

/** The contact message as the agency receives it. */
export function contactLead(request: ContactRequest): Lead {
  const name = oneLine(request.name);
  const sender = senderName(request.name);
  return {
    kind: "contact",
    subject: `New contact form message from ${sender}`,
    fromName: sender,
    replyTo: oneLine(request.email),
    text: leadText([
      ["Name", name],
      ["Email", request.email],
      ["Service", contactServiceLabel(request.service)],
      ["Message", request.message, "multiLine"],
    ]),
    fields: { name, service: contactServiceLabel(request.service), message: multiLine(request.message) },
  };
}
