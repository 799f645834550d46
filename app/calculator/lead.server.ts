import type { Lead } from "~/context";
import { leadText, oneLine, senderName } from "~/forms/lead.server";
import { COMPLEXITIES, estimate, formatUsd, optionOf, SERVICES, TIMEFRAMES } from "./pricing";
import type { CalculatorRequest } from "./rules";

/** The estimate request as the agency receives it; the estimate is computed here, never posted. */
export function calculatorLead(request: CalculatorRequest): Lead {
  const company = oneLine(request.companyName);
  const sender = senderName(request.companyName);
  return {
    kind: "calculator",
    subject: `New cost estimate request from ${sender}`,
    fromName: sender,
    replyTo: oneLine(request.email),
    text: leadText([
      ["Service", optionOf(SERVICES, request.service).label],
      ["Timeframe", optionOf(TIMEFRAMES, request.timeframe).label],
      ["Complexity", optionOf(COMPLEXITIES, request.complexity).label],
      ["Description", request.description, "multiLine"],
      ["Estimated cost", formatUsd(estimate(request))],
      ["Company", company],
      ["Email", request.email],
      ["Phone", request.phone],
    ]),
  };
}
