import type { Project, ProjectCategory } from "./types";

/** A portfolio filter value: one category, or every project. */
export type ProjectFilter = "all" | ProjectCategory;

export interface ProjectCategoryOption {
  value: ProjectFilter;
  label: string;
}

/** Filter choices on /work, in display order (default: "all"). */
export const projectCategories = [
  { value: "all", label: "All" },
  { value: "software", label: "Software Development" },
  { value: "mobile", label: "Mobile Development" },
  { value: "ai", label: "AI Solutions" },
] as const satisfies readonly ProjectCategoryOption[];

function workImage(id: string, alt: string): Project["image"] {
  return { src: `/images/work/${id}.svg`, alt, width: 640, height: 400 };
}

export const projects: readonly Project[] = [
  {
    id: "fleetline-dispatch",
    title: "FleetLine dispatch and proof of delivery",
    description:
      "A dispatch portal for a Germiston logistics company running 40 trucks across Gauteng. Drivers capture signatures and photos on delivery, and the office sees every load's status without phoning anyone.",
    category: "software",
    image: workImage("fleetline-dispatch", "Dispatch dashboard with a route map and a list of today's deliveries"),
    technologies: ["React", "Node.js", "PostgreSQL", "Google Maps API"],
    liveUrl: "https://dispatch.fleetline.co.za",
  },
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
  {
    id: "medilink-booking-app",
    title: "Medilink clinic booking app",
    description:
      "An Android and iOS app for a group of four primary-care clinics in Soweto and Randburg. Patients book and reschedule appointments, get SMS reminders the day before and join a digital queue on arrival.",
    category: "mobile",
    image: workImage("medilink-booking-app", "Phone screen with a clinic appointment calendar and a booking confirmation"),
    technologies: ["React Native", "Expo", "Node.js", "Firebase Cloud Messaging"],
    liveUrl: "https://www.medilinkclinics.co.za/app",
  },
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
  {
    id: "ledgerlift-invoice-capture",
    title: "LedgerLift invoice capture",
    description:
      "AI document extraction for a Rosebank accounting practice. Supplier invoices arriving by email are read, checked against the supplier list and posted to Zoho Books as drafts, so staff review exceptions instead of typing.",
    category: "ai",
    image: workImage("ledgerlift-invoice-capture", "Scanned invoice beside the fields extracted from it, ready for review"),
    technologies: ["Python", "FastAPI", "OpenAI API", "Zoho Books API"],
    liveUrl: "https://app.ledgerlift.co.za",
  },
  {
    id: "homestead-whatsapp-assistant",
    title: "Homestead WhatsApp support assistant",
    description:
      "A WhatsApp assistant for a Johannesburg homeware retailer that answers order-status, delivery and returns questions in English and isiZulu, and hands the conversation to a person when it is unsure.",
    category: "ai",
    image: workImage("homestead-whatsapp-assistant", "Chat conversation in which an assistant answers a customer's delivery question"),
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

/** The projects the home page shows, one per category; /work shows them all. */
export const featuredProjectIds: readonly string[] = ["fleetline-dispatch", "medilink-booking-app", "ledgerlift-invoice-capture"];
