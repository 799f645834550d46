import type { Lead } from "~/context";
import { leadText, multiLine, oneLine, senderName, VISITOR } from "~/forms/lead.server";
import { COMPLEXITIES, estimate, formatUsd, optionOf, SERVICES, TIMEFRAMES } from "./pricing";
import type { CalculatorRequest } from "./rules";

/**
 * Who the agency's mail client shows the request from: "Thandi Nkosi at Gauteng Freight" when the
 * visitor gave a name, so the reply can greet a person, and the company alone when not. Each part
 * is made safe on its own: one that cannot stand (an address, the agency's own name) is left out.
 */
function sender({ name, companyName }: CalculatorRequest): string {
  const [person, company] = [senderName(name), senderName(companyName)];
  if (person === VISITOR || company === VISITOR) return person === VISITOR ? company : person;
  return `${person} at ${company}`;
}

/** The estimate request as the agency receives it; the estimate is computed here, never posted. */
export function calculatorLead(request: CalculatorRequest): Lead {
  const from = sender(request);
  const [service, timeframe, complexity] = [
    optionOf(SERVICES, request.service).label,
    optionOf(TIMEFRAMES, request.timeframe).label,
    optionOf(COMPLEXITIES, request.complexity).label,
  ];
  const price = formatUsd(estimate(request));
  return {
    kind: "calculator",
    subject: `New cost estimate request from ${from}`,
    fromName: from,
    replyTo: oneLine(request.email),
    text: leadText([
      ["Service", service],
      ["Timeframe", timeframe],
      ["Complexity", complexity],
      ["Description", request.description, "multiLine"],
      ["Estimated cost", price],
      ...(request.name === "" ? [] : [["Name", request.name] as const]),
      ["Company", request.companyName],
      ["Email", request.email],
      ["Phone", request.phone],
    ]),
    fields: {
      ...(request.name === "" ? {} : { name: oneLine(request.name) }),
      company: oneLine(request.companyName),
      phone: oneLine(request.phone),
      service,
      timeframe,
      complexity,
      estimate: price,
      message: multiLine(request.description),
    },
  };
}
