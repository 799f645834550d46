import { fleetlineDispatch, medilinkBookingApp, ledgerliftInvoiceCapture, projectCategories, type ProjectFilter, workImage } from "./projects";
import type { Project } from "./types";

/** /work's projects, in display order: the home page's featured ones (projects.ts) among the rest. */
export const projects: readonly Project[] = [
  fleetlineDispatch,
  {
    id: "rentwise-tenant-portal",
    title: "Rentwise tenant and maintenance portal",
    description:
      "A portal for a Randburg property manager with about 300 residential units. Tenants log maintenance requests with photos and download statements; managers assign contractors and track each job to completion.",
    category: "software",
    image: workImage("rentwise-tenant-portal", "Tenant portal showing open maintenance requests and a monthly statement"),
    technologies: ["Remix", "TypeScript", "PostgreSQL", "Zoho CRM API"],
    liveUrl: "https://portal.rentwise.co.za",
  },
  medilinkBookingApp,
  {
    id: "spaza-stock-app",
    title: "SpazaStock offline stocktake app",
    description:
      "An offline-first app that lets spaza shop owners in Alexandra and Tembisa record stock and daily sales on a basic Android phone. Data syncs when a connection is available, and owners see weekly reorder suggestions.",
    category: "mobile",
    image: workImage("spaza-stock-app", "Phone screen listing shop stock levels with low-stock items highlighted"),
    technologies: ["Flutter", "Dart", "SQLite", "Supabase"],
    liveUrl: "https://www.spazastock.co.za",
    githubUrl: "https://github.com/kopano-digital/spaza-stock",
  },
  ledgerliftInvoiceCapture,
  {
    id: "homestead-whatsapp-assistant",
    title: "Homestead WhatsApp support assistant",
    description:
      "A WhatsApp assistant for a Johannesburg homeware retailer that answers order-status, delivery and returns questions in English and isiZulu, and hands the conversation to a person when it is unsure.",
    category: "ai",
    image: workImage("homestead-whatsapp-assistant", "Chat conversation in which an assistant answers a customer’s delivery question"),
    technologies: ["Python", "WhatsApp Business API", "LangChain", "PostgreSQL", "Redis"],
    liveUrl: "https://www.homesteadliving.co.za/help",
    githubUrl: "https://github.com/kopano-digital/whatsapp-support-starter",
  },
];

const filterValues: ReadonlySet<string> = new Set(projectCategories.map((c) => c.value));

function isProjectFilter(value: string): value is ProjectFilter {
  return filterValues.has(value);
}

/**
 * The projects shown for a filter value, e.g. from `?category=` on /work.
 * Absent or unknown values are treated as "all".
 */
export function filterProjects(category: string | null): {
  category: ProjectFilter;
  projects: readonly Project[];
} {
  const selected: ProjectFilter = category !== null && isProjectFilter(category) ? category : "all";
  return {
    category: selected,
    projects: selected === "all" ? projects : projects.filter((p) => p.category === selected),
  };
}
