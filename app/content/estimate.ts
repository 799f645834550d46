/**
 * What an estimate's own page (/estimate?…) says around the figure: what it covers, what it does
 * not, and how long it stands. The page is the same for everyone with the same choices, so nothing
 * here may depend on the day or the visitor.
 */
export const estimateText = {
  eyebrow: "Project estimate",
  /** Under the figure. */
  lead: "From the cost calculator on our website, for the answers below. A person on our team confirms the price in a written quote.",
  choicesTitle: "Your answers",
  /** The date the calculator's prices (app/calculator/pricing.ts) took effect: change it with them. */
  pricesAsOf: "1 November 2026",
  covers: {
    heading: "What the figure covers",
    items: [
      "Planning, design, building and testing of the service you chose, at the timeframe and complexity above.",
      "A named project lead, and a short progress update every week.",
      "Launch, and fixes to anything we built that does not work as agreed, for 30 days after it.",
    ],
  },
  excludes: {
    heading: "What it does not cover",
    items: [
      "Other companies’ charges: hosting, domains, app store fees, software licences and paid services, which we pass on at cost.",
      "Content such as copy, photos and translations, and moving data from your old systems, unless the written quote includes them.",
      "VAT, where it applies, and changes asked for after the written quote is agreed.",
    ],
  },
  stands: {
    heading: "How long it stands",
    text: "This is an estimate, not an offer: it follows the prices of the date above, and this page always shows the figure at our current prices. The written quote we send within one business day of your request fixes the price and holds for 30 days.",
  },
  start: "Start a Request with These Answers",
  /** Instead of the button, to the browser that sent a request with these answers (its receipt, or the tab's record). */
  sent: (reference: string) =>
    `You sent a request with these answers, reference ${reference}. A person on our team emails you a written quote within one business day; quote the reference if you contact us about it.`,
  /** Beside the button: what it does. */
  startHint: "Opens our calculator with these three answers chosen: add a few words about the project and your details, and send.",
} as const;
