import type { Service } from "./types";

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
    icon: "/images/services/ai-solutions.svg",
  },
  {
    key: "zoho",
    name: "Zoho Solutions",
    slug: "zoho-solutions",
    title: "Zoho set up properly, from CRM to Books",
    description: "We implement, customise and connect Zoho apps so your sales, finance and operations teams work from one source of truth.",
    details: [
      "Zoho CRM implementation and set-up",
      "Zoho Books and Inventory configuration",
      "Custom modules, layouts and blueprints",
      "Deluge scripts and workflow automation",
      "Data migration from spreadsheets or other CRMs",
      "User training and ongoing admin support",
    ],
    icon: "/images/services/zoho-solutions.svg",
  },
];

/**
 * The contact form's service choices, in display order (docs/product.md). The form shows an
 * empty "Choose a service" option first; choosing none is an error. Here rather than in a module
 * of their own: the form's rules, loaded on demand, import them too, and a module the page shares
 * with those rules alone became a script of its own on the home page (129 B, perf/README.md).
 */
export const CONTACT_SERVICES = [
  { value: "low-code", label: "Low-code development" },
  { value: "seo", label: "SEO & Digital Marketing" },
  { value: "ai", label: "AI Solutions" },
  { value: "zoho", label: "Zoho Solutions" },
] as const;

export type ContactServiceValue = (typeof CONTACT_SERVICES)[number]["value"];

export function contactServiceLabel(value: ContactServiceValue): string {
  return CONTACT_SERVICES.find((o) => o.value === value)!.label;
}
