/**
 * What the cost calculator says besides its choices (app/calculator/pricing.ts has those) and its
 * breakdown (app/content/breakdown.ts). Step 5 says what really happens: the request reaches the
 * agency, and a person emails a written quote; nothing is sent to the visitor automatically.
 */
export const calculatorText = {
  headings: {
    1: "Which service do you need?",
    2: "When do you need it?",
    3: "How complex is it?",
    4: "Tell us about your project",
    5: "Your estimate, and how to reach you",
  },
  /** Step 4's description is optional (the specification); its hint asks for it all the same. */
  descriptionHint: "Optional, but a few lines help us quote closely: what should it do, who will use it, and anything we should know.",
  /** The description's bound (LIMITS.description), under its box until the visitor types, when it counts the room left. */
  descriptionBound: "At most 5,000 characters.",
  /** Step 5's answers and the agency's message when no description was given. */
  noDescription: "Not given",
  /** Short: on a phone "Company name" is in view as step 5 opens (the privacy note, under Send, says what the details are for). */
  detailsIntro: "A person on our team emails you a written quote within one business day. Nothing is sent to you automatically.",
  summaryTitle: "Your answers",
  /** Step 5's and the thanks' link to the estimate's own page (/estimate?…). */
  keepLink: "Keep or share this estimate",
  /** Shown after a send, under the thank-you message. */
  referenceLabel: "Your reference",
  /** The thanks' link to the agency's booking page, when BOOKING_URL is set; without one, the phone and email follow `talkNow`. */
  bookCall: "Book a Call",
} as const;

/**
 * A draft that is gone (expired, sent, another browser's, or on another server without shared storage), as the page says it:
 * only the server finds one gone, and sends this with its answer (so the home page's script carries none of it).
 */
export const expiredNote =
  "Those answers are no longer kept here (we delete them once sent, keep them only briefly, and only for the browser that gave them), so the calculator has started again.";

/** The thanks' line on what happens next; the server sends it with the receipt (out of calculatorText: the home page's script carries none of it). */
export const nextSteps =
  "What happens next: a person on our team reads your request and emails a written quote to the address you gave within one business day (Monday to Friday). If something is unclear, we call you first.";

/** Both forms' thanks without a booking page, before the agency's phone and email; sent with the receipt, as `nextSteps`. */
export const talkNow = "Rather talk now? Call or email us, quoting your reference:";

/** The thanks' line on what was sent, made on the server from the receipt, e.g. "…, Complex, estimated at USD 5,625." */
export const sentSummary = (choices: string, figure: string) => `You asked about ${choices}, estimated at ${figure}.`;
