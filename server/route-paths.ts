import type { ServerBuild } from "@remix-run/node";

/**
 * The app's own URL paths, from the Remix build's route manifest ("/", "/services", "/healthz",
 * …), so a new route needs no change in the server: the metrics name requests by them, and the
 * page cache keeps the pages among them (`pagesOnly`: routes with a component). Paths with parameters
 * or splats are left out: their values are unbounded.
 */
export function routePaths(routes: ServerBuild["routes"], { pagesOnly = false } = {}): string[] {
  const segments = (id: string | undefined): string[] => {
    const route = id === undefined ? undefined : routes[id];
    return route ? [...segments(route.parentId), ...(route.path ? [route.path] : [])] : [];
  };
  const paths = Object.entries(routes)
    .filter(([, route]) => !pagesOnly || route.module?.default)
    .map(([id]) => `/${segments(id).join("/")}`);
  return [...new Set(paths)].filter((path) => !/[:*]/.test(path));
}
