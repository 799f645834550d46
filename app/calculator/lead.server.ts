import { calculatorText } from "~/content/calculator";
import type { Lead } from "~/context";
import { leadText, multiLine, oneLine, senderName } from "~/forms/lead.server";
import { COMPLEXITIES, estimate, formatPrice, optionOf, SERVICES, TIMEFRAMES, type ZarRate } from "./pricing";
import type { CalculatorRequest } from "./rules";

/** The estimate request as the agency receives it; the estimate is computed here, never posted (in rand too with the operator's rate). */
export function calculatorLead(request: CalculatorRequest, zar?: ZarRate): Lead {
  // The sender the agency's mail client shows is the company name entered (the specification's
  // `from_name`); the person's name, when given, is in the message. A company name that cannot
  // stand there (an address, the agency's own name) becomes the placeholder, kept as typed below.
  const from = senderName(request.companyName);
  const [service, timeframe, complexity] = [
    optionOf(SERVICES, request.service).label,
    optionOf(TIMEFRAMES, request.timeframe).label,
    optionOf(COMPLEXITIES, request.complexity).label,
  ];
  const price = formatPrice(estimate(request), zar);
  return {
    kind: "calculator",
    subject: `New cost estimate request from ${from}`,
    fromName: from,
    replyTo: oneLine(request.email),
    text: leadText([
      ["Service", service],
      ["Timeframe", timeframe],
      ["Complexity", complexity],
      ["Description", request.description || calculatorText.noDescription, "multiLine"],
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
