import type { ServiceKey, ServicePageCopy } from "./types";

/**
 * The longer copy that only /services shows, by service. Kept apart from services.ts, which the
 * home page's tabs and every page's footer import, so other pages do not download it.
 */
export const servicePages: Readonly<Record<ServiceKey, ServicePageCopy>> = {
  softwareDev: {
    longDescription:
      "We start with a short discovery phase to map the workflow, the users and the data, then deliver in two-week iterations you can click through. Every project ships with automated tests, a documented deployment and a handover your own team can follow. After launch we stay on for support, fixes and the next round of features.",
    deliverables: [
      "Discovery workshop and written scope",
      "Clickable prototype before the build starts",
      "Production application with automated tests",
      "Deployment pipeline and hosting set-up",
      "Handover documentation and training",
    ],
  },
  seo: {
    longDescription:
      "We begin with an audit of your site’s speed, structure and indexing, and a look at what your competitors rank for. From there we agree a short list of priorities, fix what is broken and publish content on a steady schedule. Each month you get a report that ties rankings and traffic back to leads and sales.",
    deliverables: [
      "Technical and content audit",
      "Keyword map for your key pages",
      "Google Business Profile optimisation",
      "Analytics and conversion tracking set-up",
      "Monthly performance report",
    ],
  },
  ai: {
    longDescription:
      "We start by measuring the task you want to automate: how long it takes, how often it happens and what a mistake costs. We then build a small pilot, test it on real examples from your business and roll it out only once it meets the accuracy we agreed on. Personal information is handled in line with POPIA, and a person stays in the loop where it matters.",
    deliverables: [
      "Use-case assessment and cost estimate",
      "Working pilot on your own data",
      "Accuracy report against agreed targets",
      "Integration with your existing systems",
      "Monitoring and usage dashboard",
    ],
  },
  zoho: {
    longDescription:
      "Whether you are moving off spreadsheets or untangling an existing Zoho account, we map your sales and finance process first and configure Zoho to match it. We migrate and clean your data, automate the hand-offs between teams and connect Zoho to the other tools you rely on. Your staff get hands-on training, and we remain available for changes as the business grows.",
    deliverables: [
      "Process map and configuration plan",
      "Configured Zoho CRM, Books or Inventory",
      "Cleaned and migrated data",
      "Automations and integrations",
      "Hands-on staff training",
    ],
  },
};
