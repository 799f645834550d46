import type { ServerBuild } from "@remix-run/node";

/**
 * The app's URL paths from the Remix build's manifest (`pagesOnly`: routes with a component), so a
 * new route needs no change here. Paths with parameters or splats are left out: their values are unbounded.
 */
export function routePaths(routes: ServerBuild["routes"], { pagesOnly = false } = {}): string[] {
  const paths = Object.entries(routes)
    .filter(([, route]) => !pagesOnly || route.module?.default)
    .map(([id]) => pathOf(routes, id));
  return [...new Set(paths)].filter((path) => !/[:*]/.test(path));
}

/** A route's whole path, its parents' segments first. */
function pathOf(routes: ServerBuild["routes"], id: string | undefined): string {
  const segments = (id: string | undefined): string[] => {
    const route = id === undefined ? undefined : routes[id];
    return route ? [...segments(route.parentId), ...(route.path ? [route.path] : [])] : [];
  };
  return `/${segments(id).join("/")}`;
}

/** The methods each resource route (no component: /healthz, /robots.txt) answers, by path: GET and HEAD with a loader, POST with an action. */
export function resourceMethods(routes: ServerBuild["routes"]): Map<string, string[]> {
  const methods = new Map<string, string[]>();
  for (const [id, route] of Object.entries(routes)) {
    const path = pathOf(routes, id);
    if (route.module?.default || /[:*]/.test(path)) continue;
    methods.set(path, [...(route.module?.loader ? ["GET", "HEAD"] : []), ...(route.module?.action ? ["POST"] : [])]);
  }
  return methods;
}
