/**
 * The query parameters that select what a public page shows, per path, with the values that
 * select something: the server's page cache keys on these alone (server/page-cache.ts). Any other
 * parameter (utm_*, gclid, …) and any other value gets the same bytes as the page without it,
 * which is what the page renders for them. Derived from the content, so a new service or project
 * category is a new variant without touching this file.
 */
import { projectCategories } from "~/content/projects";
import { services } from "~/content/services";

export type PageVariants = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;

export const pageVariants: PageVariants = {
  "/": { service: services.map((service) => service.key) },
  "/work": { category: projectCategories.map((category) => category.value) },
};
