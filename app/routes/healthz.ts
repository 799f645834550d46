import { json, type LoaderFunctionArgs } from "@remix-run/node";

/** Liveness for the container and the load balancer: never calls the form service. */
export function loader({ context }: LoaderFunctionArgs) {
  return json(context.health(), { headers: { "Cache-Control": "no-store" } });
}
