import type { ServerBuild } from "@remix-run/node";

/** The app's paths from the build's manifest (`pagesOnly`: with a component); not those with parameters, whose values are unbounded. */
export function routePaths(routes: ServerBuild["routes"], { pagesOnly = false } = {}): string[] {
  const paths = Object.entries(routes)
    .filter(([, route]) => !pagesOnly || route.module?.default)
    .map(([id]) => pathOf(routes, id));
  return [...new Set(paths)].filter((path) => !/[:*]/.test(path));
}

function pathOf(routes: ServerBuild["routes"], id: string | undefined): string {
  const segments = (id: string | undefined): string[] => {
    const route = id === undefined ? undefined : routes[id];
    return route ? [...segments(route.parentId), ...(route.path ? [route.path] : [])] : [];
  };
  return `/${segments(id).join("/")}`;
}

/** What each resource route (no component: /healthz, /robots.txt) answers: GET and HEAD with a loader, POST with an action. */
export function resourceMethods(routes: ServerBuild["routes"]): Map<string, string[]> {
  const methods = new Map<string, string[]>();
  for (const [id, route] of Object.entries(routes)) {
    const path = pathOf(routes, id);
    if (route.module?.default || /[:*]/.test(path)) continue;
    methods.set(path, [...(route.module?.loader ? ["GET", "HEAD"] : []), ...(route.module?.action ? ["POST"] : [])]);
  }
  return methods;
}
