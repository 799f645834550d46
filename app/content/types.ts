/** Shapes of the hard-coded content the site shows (docs/product.md). */

export type ServiceKey = "softwareDev" | "seo" | "ai" | "zoho";

/** What /services adds to a Service (app/content/service-pages.ts). */
export interface ServicePageCopy {
  /** Longer copy for /services. */
  longDescription: string;
  /** Typical deliverables listed on /services. */
  deliverables: readonly string[];
}

export interface Service {
  key: ServiceKey;
  /** Tab label and heading, e.g. "Software Development". */
  name: string;
  /** Anchor id on /services, e.g. "software-development". */
  slug: string;
  title: string;
  description: string;
  /** Exactly six detail items. */
  details: readonly [string, string, string, string, string, string];
  /** Path under public/, e.g. "/images/services/software.svg". */
  icon: string;
}

export interface Image {
  src: string;
  alt: string;
  width: number;
  height: number;
}

export type ProjectCategory = "software" | "mobile" | "ai";

export interface Project {
  id: string;
  title: string;
  description: string;
  category: ProjectCategory;
  image: Image;
  technologies: readonly string[];
  liveUrl: string;
  githubUrl?: string;
}

export interface Testimonial {
  name: string;
  position: string;
  image: Image;
  content: string;
  rating: 5;
}

export interface TeamMember {
  name: string;
  position: string;
  image: Image;
  description: string;
}

export interface Value {
  title: string;
  description: string;
}

export interface Claim {
  value: string;
  label: string;
}
