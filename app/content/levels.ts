/**
 * What each timeframe and each complexity means for each of the calculator's services, one line
 * beside its choice at steps 2 and 3 (the choice's name stays its label). In the browser they come
 * with the form's rules (app/schema.ts), not with the page: the home page's script budget. Keyed
 * by app/calculator/pricing.ts's values (content imports nothing of the calculator's: its users
 * index it with those values, and pricing.test.ts checks each service has all six).
 */
export type Levels = Record<"urgent" | "standard" | "relaxed" | "simple" | "medium" | "complex", string>;

export const LEVELS = {
  softwareDev: {
    urgent: "A working first release in two weeks: one focused feature set, the rest planned for later.",
    standard: "Design, build and testing at a steady pace, with a demo to you every week.",
    relaxed: "Room for a discovery week and your team’s feedback between each stage.",
    simple: "A few screens or an internal tool: forms, lists and a login, one kind of user.",
    medium: "A web app with several user roles, reports and one or two integrations.",
    complex: "A platform with payments, many integrations or heavy data, built to scale.",
  },
  mobileApp: {
    urgent: "A lean first version for one platform, ready for testers in two weeks.",
    standard: "iOS and Android from one codebase, with store submission included.",
    relaxed: "Time for user testing with your customers before the stores.",
    simple: "A handful of screens showing your content, with sign-in and push messages.",
    medium: "Accounts, payments or bookings, talking to your existing systems.",
    complex: "Offline use, maps, real-time updates or device hardware, and an admin side.",
  },
  seo: {
    urgent: "A technical audit and the quick fixes live within two weeks.",
    standard: "Audit, fixes, keyword plan and the first month of content and ads.",
    relaxed: "A steady build-up of content and links, measured month by month.",
    simple: "One site, local search: Google Business Profile, fixes and key pages.",
    medium: "A national audience: content plan, paid search and monthly reporting.",
    complex: "Many pages or an online shop, several markets, campaigns across channels.",
  },
  ai: {
    urgent: "A working prototype on your own data in two weeks, to try with your team.",
    standard: "A tested assistant or automation, connected to one of your systems.",
    relaxed: "Time to gather and clean your data and pilot it with real users first.",
    simple: "A chatbot answering from your documents and FAQs, on your website.",
    medium: "An assistant that looks up and updates your systems, with a human hand-over.",
    complex: "Several systems, custom models or strict privacy and audit needs.",
  },
  zoho: {
    urgent: "One Zoho app set up and your data moved in, within two weeks.",
    standard: "Setup, data migration and training for your team in three to four weeks.",
    relaxed: "Rolled out team by team, with time to adjust between each.",
    simple: "Zoho CRM set up for one team: fields, pipelines and email templates.",
    medium: "Several Zoho apps working together, with workflows and reports.",
    complex: "Custom Deluge functions, integrations with other systems and many teams.",
  },
} satisfies Record<string, Levels>;
