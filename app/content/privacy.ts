import { site } from "./site";

/**
 * What the notice says of the server's settings, so it stays true when they change: where a sent
 * form goes (null when FORM_ACCESS_KEY is unset: it stays on this server, in the outbox), how
 * long a delivered lead is kept (LEAD_RETENTION_DAYS), and the host of the booking page the
 * thanks offer (BOOKING_URL; none when unset). The server passes them (app/context.ts).
 */
export interface PrivacyFacts {
  formService: { provider: "web3forms" | "formspree" | "webhook" | "zoho-crm"; host: string; inbox: string } | null;
  retentionDays: number;
  booking?: string;
}

/**
 * How long the server keeps what a visitor's own pages need between requests (the calculator's
 * answers between steps without JavaScript; a sent request's reference, choices and estimate)
 * after the last step: the draft store's lifetime and its cookie's (server/drafts.ts,
 * app/forms/visitor.server.ts).
 */
export const DRAFT_LIFETIME_MINUTES = 60;

/** How long the calculator funnel's daily counts are kept (server/funnel.ts, decision 0036). */
export const FUNNEL_KEEP_DAYS = 400;

/**
 * How long a sent form keeps the code of the address it came from after it is passed on: the
 * last hour's fairness among addresses (decision 0031; server/leads/store.ts, purge).
 */
export const ADDRESS_CODE_HOURS = 1;

export interface PrivacySection {
  heading: string;
  paragraphs?: readonly string[];
  items?: readonly string[];
}

/** The privacy notice (POPIA, the Protection of Personal Information Act 4 of 2013) shown at /privacy. */
export const privacy = {
  title: "Privacy notice",
  lead: `What ${site.name} does with the details you give us through this website, and the rights you have over them.`,
  updated: "2026-12-08",
  /** Its sections: what they say of the form service and of retention follows the server’s settings. */
  sections: (facts: PrivacyFacts): readonly PrivacySection[] => [
    {
      heading: "What we collect",
      paragraphs: ["Only what you type into our two forms:"],
      items: [
        "The cost calculator: the service, timeframe and complexity you chose, your project description, your name if you give it, your company name, email address and phone number, and the estimate the calculator showed you.",
        "The contact form: your name, email address, the service you are interested in and your message.",
        "With either form: where your visit came from, in the words we count it by (below), so that we learn which of our campaigns bring requests. The click identifiers advertising networks add to links (gclid, fbclid, msclkid) are never kept.",
      ],
    },
    {
      heading: "What we count",
      paragraphs: [
        `To learn which of our campaigns and links bring visitors, and where visitors leave our cost calculator, our server counts, each day, how many visits arrived on our pages from elsewhere (another site, a campaign’s link, or typed in), reached each of the calculator’s steps, sent it, or sent the contact form, by kind of device (phone, tablet or desktop, from your browser’s type) and by where the visit came from: a campaign we named in the link you followed (such as our newsletter, and which of its posts or adverts, where we named it), the kind of site that linked to ours (a search engine, a social network, an AI assistant, or just “another site”), a site we list by its name, that an advert’s link brought you (from its click identifier’s name alone, never its value), or that you came directly. Any other link counts as “other”: what a link or another site says is never counted or passed on as it is. It keeps only those daily totals, for ${Math.round(FUNNEL_KEEP_DAYS / 30.4)} months: not your address, your browser’s details, a cookie or anything that tells your visit from another’s. Known search-engine robots are not counted. So that one connection cannot inflate the arrivals, our server remembers for that day, in its memory only, a code made from your internet address (the address itself beside it for a minute at most) and how many arrivals it counted from it.`,
        `For each request or message you send, it also keeps its reference, the day, where the visit came from, the kind of device and whether it became work for us (and what that work is worth), for the same ${Math.round(FUNNEL_KEEP_DAYS / 30.4)} months, so that we learn which campaigns bring us work: none of what you typed. When you ask us to delete your details, the reference goes too.`,
      ],
    },
    {
      heading: "What we do not collect",
      paragraphs: [
        "This site runs no analytics service or advertising tracker of another company’s and loads nothing from other companies’ servers. Our server records each request (the page, the time and the answer) without your address or anything you typed, and counts requests per address for a few minutes to stop abuse.",
      ],
    },
    {
      heading: "When many messages come from one address",
      paragraphs: [
        `Many people can share one internet address (an office, a mobile network), so when many messages come from one address in a short time we hold some of them back and pass them on in turn, fairly among addresses. For that, each message you send is stored with a code worked out from your address with a secret key that our server keeps only in its memory and never writes down, so the code cannot be turned back into your address. The code is deleted about ${ADDRESS_CODE_HOURS === 1 ? "an hour" : `${ADDRESS_CODE_HOURS} hours`} after your message is sent on its way to us, or with your message if that is sooner.`,
      ],
    },
    {
      heading: "While you fill in our forms",
      items: [
        "With JavaScript on, your browser keeps your calculator answers and what you type into the contact form in its session storage, on your device, until you send them or close the tab, and the part after “?” of the address you arrived at (such as a campaign’s name or an advert’s click identifier) and the name of the site you came from until you close the tab. Our server reads only the campaign’s names (its source, medium, name, and the advert or search word where we named it) and whether there was a click identifier.",
        `Without JavaScript, each calculator step is a page of its own, so our server keeps your answers between steps: for at most ${DRAFT_LIFETIME_MINUTES} minutes after your last step, and no longer than until you send your request, with the campaign values of the address you arrived at. The same goes for a contact message that comes back to you with a mistake to correct.`,
        `When you step through the calculator without JavaScript, send it or a contact message, or get a contact message back to correct, our server sets one cookie, named “visit” (“__Host-visit” over a secure connection). It holds a random number, so that only your browser can open those answers, and see again what it sent: your request’s reference, choices and estimate, or your message’s reference. It says nothing about you, is never used to follow you, and expires ${DRAFT_LIFETIME_MINUTES} minutes after your last step.`,
      ],
    },
    {
      heading: "Why we collect it",
      paragraphs: [
        "To answer you: to prepare the quote you asked for or reply to your message, and to contact you about it by email or phone. We do not use your details for marketing, and we never sell or share them for anyone else’s marketing.",
      ],
    },
    ...receivers(facts),
    ...(facts.booking
      ? [
          {
            heading: "If you book a call",
            paragraphs: [
              `After you send the calculator, we offer to book a call on ${facts.booking}, another company’s booking page. If you book a call there, it receives your request’s reference (in the link we give you) and what you type on its page, and handles them under its own privacy notice.`,
            ],
          },
        ]
      : []),
    {
      heading: "Your rights",
      paragraphs: ["Under POPIA you may:"],
      items: [
        "ask whether we hold personal information about you, and for a copy of it;",
        "ask us to correct it, or to delete it when we no longer need it;",
        "object to our use of it;",
        "complain to the Information Regulator (inforegulator.org.za) if you believe we have not handled it properly.",
      ],
    },
    {
      heading: "How to ask",
      paragraphs: [
        `Email our information officer at ${site.informationOfficer.email} with the email address or phone number you gave us, or your request’s reference (it begins with the date, such as 20261122-7F3KQ9ZA). We may first ask you to confirm that the request is yours, for instance by replying from that email address.`,
        `We then look for everything our server holds with it: each request and message you sent, whether or not it has reached us yet. We tell you what we found, send you a copy if you ask for one, and, when you ask us to delete it, delete all of it from our server, even what it had not yet passed on to us. ${copyElsewhere(facts)} Answers our server keeps between calculator steps are deleted on their own, at most ${DRAFT_LIFETIME_MINUTES} minutes after your last step.`,
      ],
    },
  ],
  officer: {
    heading: "Our information officer",
    intro: "For any of the above, or any question about your personal information, contact:",
  },
} as const;

const SERVICE_NAMES = { web3forms: "Web3Forms", formspree: "Formspree", "zoho-crm": "Zoho CRM" } as const;

/** Where a request to delete reaches besides our server, as the server is set up: the form service's or CRM's own copy. */
function copyElsewhere({ formService }: PrivacyFacts): string {
  if (formService === null) return "Our server is the only place it is kept.";
  const { provider, host } = formService;
  return {
    web3forms: "We also delete the copy Web3Forms emailed to our inbox.",
    formspree: "We also delete the copy Formspree keeps among our form’s messages and emailed to our inbox.",
    webhook: `We also delete the copy our form service at ${host} passed on to us.`,
    "zoho-crm": "We also delete the lead it became in our customer records in Zoho CRM.",
  }[provider];
}

/** Who receives a sent form, and where it is kept for how long, as the server is set up. */
function receivers({ formService, retentionDays }: PrivacyFacts): PrivacySection[] {
  const keep = "for as long as we are discussing or working on your project, and afterwards as long as the law requires us to keep business records.";
  if (formService === null) {
    return [
      { heading: "Who receives it", paragraphs: ["When you send a form, our server stores it, and our team reads it there; nobody else does."] },
      { heading: "Where it is kept, and for how long", items: [`On the server that runs this site, ${keep}`] },
    ];
  }
  const { provider, host, inbox } = formService;
  const service = provider === "webhook" ? `our form service at ${host}` : `our form service, ${SERVICE_NAMES[provider]}`;
  const delivers = {
    web3forms: `emails it to our inbox, ${inbox}`,
    formspree: "emails it to our inbox",
    webhook: "passes it on to us",
    "zoho-crm": "keeps it as a lead in our customer records",
  }[provider];
  const after =
    retentionDays === 0
      ? "and is then deleted"
      : `then kept for ${retentionDays} ${retentionDays === 1 ? "day" : "days"} in case a delivery needs to be checked or repeated, after which it is deleted`;
  return [
    {
      heading: "Who receives it",
      paragraphs: [
        provider === "zoho-crm"
          ? `When you send a form, our server stores it and then passes it to Zoho CRM, the service that ${delivers}. Zoho processes it only on our behalf. Our team reads it there; nobody else does.`
          : `When you send a form, our server stores it and then passes it to ${service}, which ${delivers}. The form service processes it only to deliver it to us. Our team reads it there; nobody else does.`,
      ],
    },
    {
      heading: "Where it is kept, and for how long",
      items: [
        `On the server that runs this site, until our form service confirms it has been delivered, ${after}.`,
        "If the form service refuses a message, it stays on our server until one of our team delivers or deletes it by hand.",
        `${{ webhook: "Where our form service delivers it to us", "zoho-crm": "In our customer records in Zoho CRM" }[provider as string] ?? "In our email inbox"}, ${keep}`,
      ],
    },
  ];
}
