import type { Service, ServiceKey } from "./types";

/** The four services, in tab order (default tab: softwareDev). A tuple, so `services[0]` is a Service. */
export const services: readonly [Service, Service, Service, Service] = [
  {
    key: "softwareDev",
    name: "Software Development",
    slug: "software-development",
    title: "Custom software that fits the way you work",
    description:
      "We design and build web applications, internal tools and mobile apps around your real processes, so your team can stop working around spreadsheets.",
    details: [
      "Web applications and customer portals",
      "Android and iOS mobile apps",
      "Internal tools and admin dashboards",
      "API design and third-party integrations",
      "Modernising legacy systems",
      "Hosting, monitoring and ongoing support",
    ],
    longDescription:
      "We start with a short discovery phase to map the workflow, the users and the data, then deliver in two-week iterations you can click through. Every project ships with automated tests, a documented deployment and a handover your own team can follow. After launch we stay on for support, fixes and the next round of features.",
    deliverables: [
      "Discovery workshop and written scope",
      "Clickable prototype before the build starts",
      "Production application with automated tests",
      "Deployment pipeline and hosting set-up",
      "Handover documentation and training",
    ],
    icon: "/images/services/software-development.svg",
  },
  {
    key: "seo",
    name: "SEO & Digital Marketing",
    slug: "seo-digital-marketing",
    title: "Get found by the customers already searching for you",
    description:
      "We fix the technical foundations of your site, write content that answers real search queries and run paid campaigns measured against enquiries, not clicks.",
    details: [
      "Technical SEO audits and fixes",
      "Keyword and competitor research",
      "Local SEO and Google Business Profile",
      "Content strategy and copywriting",
      "Google Ads and Meta campaigns",
      "Monthly reporting in plain language",
    ],
    longDescription:
      "We begin with an audit of your site's speed, structure and indexing, and a look at what your competitors rank for. From there we agree a short list of priorities, fix what is broken and publish content on a steady schedule. Each month you get a report that ties rankings and traffic back to leads and sales.",
    deliverables: [
      "Technical and content audit",
      "Keyword map for your key pages",
      "Google Business Profile optimisation",
      "Analytics and conversion tracking set-up",
      "Monthly performance report",
    ],
    icon: "/images/services/seo-digital-marketing.svg",
  },
  {
    key: "ai",
    name: "AI Solutions",
    slug: "ai-solutions",
    title: "Practical AI that gives your team hours back",
    description:
      "We find the repetitive, document-heavy work in your business and automate it with AI that is tested against your own data before it goes live.",
    details: [
      "Customer support chat assistants",
      "Document extraction and classification",
      "Search across your internal knowledge",
      "Workflow and email automation",
      "Forecasting from your sales data",
      "Data handling aligned with POPIA",
    ],
    longDescription:
      "We start by measuring the task you want to automate: how long it takes, how often it happens and what a mistake costs. We then build a small pilot, test it on real examples from your business and roll it out only once it meets the accuracy we agreed on. Personal information is handled in line with POPIA, and a person stays in the loop where it matters.",
    deliverables: [
      "Use-case assessment and cost estimate",
      "Working pilot on your own data",
      "Accuracy report against agreed targets",
      "Integration with your existing systems",
      "Monitoring and usage dashboard",
    ],
    icon: "/images/services/ai-solutions.svg",
  },
  {
    key: "zoho",
    name: "Zoho Solutions",
    slug: "zoho-solutions",
    title: "Zoho set up properly, from CRM to Books",
    description:
      "We implement, customise and connect Zoho apps so your sales, finance and operations teams work from one source of truth.",
    details: [
      "Zoho CRM implementation and set-up",
      "Zoho Books and Inventory configuration",
      "Custom modules, layouts and blueprints",
      "Deluge scripts and workflow automation",
      "Data migration from spreadsheets or other CRMs",
      "User training and ongoing admin support",
    ],
    longDescription:
      "Whether you are moving off spreadsheets or untangling an existing Zoho account, we map your sales and finance process first and configure Zoho to match it. We migrate and clean your data, automate the hand-offs between teams and connect Zoho to the other tools you rely on. Your staff get hands-on training, and we remain available for changes as the business grows.",
    deliverables: [
      "Process map and configuration plan",
      "Configured Zoho CRM, Books or Inventory",
      "Cleaned and migrated data",
      "Automations and integrations",
      "Hands-on staff training",
    ],
    icon: "/images/services/zoho-solutions.svg",
  },
];

/** The service with the given key. Every ServiceKey has exactly one entry above. */
export function getService(key: ServiceKey): Service {
  const service = services.find((s) => s.key === key);
  if (!service) throw new Error(`Unknown service key: ${key}`);
  return service;
}
