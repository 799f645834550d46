/**
 * The query parameters that select what a public page shows, per path, with the values that
 * select something: the server's page cache keys on these alone (server/page-cache.ts). Any other
 * parameter (utm_*, gclid, …) and any other value gets the same bytes as the page without it,
 * which is what the page renders for them (an estimate without its three choices is a 404, never
 * kept). Derived from the content and the calculator's choices, so a new service or project
 * category is a new variant without touching this file.
 */
import { COMPLEXITY_VALUES, SERVICE_VALUES, TIMEFRAME_VALUES } from "~/calculator/pricing";
import { projectCategories } from "~/content/projects";
import { services } from "~/content/services";

export type PageVariants = Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;

export const pageVariants: PageVariants = {
  "/": { service: services.map((service) => service.key) },
  "/work": { category: projectCategories.map((category) => category.value) },
  // An estimate's page: one for each of the calculator's 45 combinations (app/calculator/choices.ts).
  "/estimate": { service: SERVICE_VALUES, timeframe: TIMEFRAME_VALUES, complexity: COMPLEXITY_VALUES },
};
