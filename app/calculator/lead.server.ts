import { calculatorText } from "~/content/calculator";
import type { Lead } from "~/context";
import { leadText, oneLine, senderName } from "~/forms/lead.server";
import { COMPLEXITIES, estimate, formatUsd, optionOf, SERVICES, TIMEFRAMES } from "./pricing";
import type { CalculatorRequest } from "./rules";

/** The estimate request as the agency receives it; the estimate is computed here, never posted. */
export function calculatorLead(request: CalculatorRequest): Lead {
  // The sender the agency's mail client shows is the company name entered (the specification's
  // `from_name`); the person's name, when given, is in the message. A company name that cannot
  // stand there (an address, the agency's own name) becomes the placeholder, kept as typed below.
  const from = senderName(request.companyName);
  return {
    kind: "calculator",
    subject: `New cost estimate request from ${from}`,
    fromName: from,
    replyTo: oneLine(request.email),
    text: leadText([
      ["Service", optionOf(SERVICES, request.service).label],
      ["Timeframe", optionOf(TIMEFRAMES, request.timeframe).label],
      ["Complexity", optionOf(COMPLEXITIES, request.complexity).label],
      ["Description", request.description || calculatorText.noDescription, "multiLine"],
      ["Estimated cost", formatUsd(estimate(request))],
      ...(request.name === "" ? [] : [["Name", request.name] as const]),
      ["Company", request.companyName],
      ["Email", request.email],
      ["Phone", request.phone],
    ]),
  };
}
