/**
 * The portfolio's categories and the projects the home page shows. They are apart from the rest
 * (work.ts, /work's list) so the home page's JavaScript carries only what it renders.
 */
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

export function workImage(id: string, alt: string): Project["image"] {
  return { src: `/images/work/${id}.svg`, alt, width: 640, height: 400 };
}

export const fleetlineDispatch: Project = {
  id: "fleetline-dispatch",
  title: "FleetLine dispatch and proof of delivery",
  description:
    "A dispatch portal for a Germiston logistics company running 40 trucks across Gauteng. Drivers capture signatures and photos on delivery, and the office sees every load’s status without phoning anyone.",
  category: "software",
  image: workImage("fleetline-dispatch", "Dispatch dashboard with a route map and a list of today’s deliveries"),
  technologies: ["React", "Node.js", "PostgreSQL", "Google Maps API"],
  liveUrl: "https://dispatch.fleetline.co.za",
};

export const medilinkBookingApp: Project = {
  id: "medilink-booking-app",
  title: "Medilink clinic booking app",
  description:
    "An Android and iOS app for a group of four primary-care clinics in Soweto and Randburg. Patients book and reschedule appointments, get SMS reminders the day before and join a digital queue on arrival.",
  category: "mobile",
  image: workImage("medilink-booking-app", "Phone screen with a clinic appointment calendar and a booking confirmation"),
  technologies: ["React Native", "Expo", "Node.js", "Firebase Cloud Messaging"],
  liveUrl: "https://www.medilinkclinics.co.za/app",
};

export const ledgerliftInvoiceCapture: Project = {
  id: "ledgerlift-invoice-capture",
  title: "LedgerLift invoice capture",
  description:
    "AI document extraction for a Rosebank accounting practice. Supplier invoices arriving by email are read, checked against the supplier list and posted to Zoho Books as drafts, so staff review exceptions instead of typing.",
  category: "ai",
  image: workImage("ledgerlift-invoice-capture", "Scanned invoice beside the fields extracted from it, ready for review"),
  technologies: ["Python", "FastAPI", "OpenAI API", "Zoho Books API"],
  liveUrl: "https://app.ledgerlift.co.za",
};

/** The projects the home page shows, one per category; /work shows them among the rest (work.ts). */
export const featuredProjects: readonly Project[] = [fleetlineDispatch, medilinkBookingApp, ledgerliftInvoiceCapture];
