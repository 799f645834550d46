import { json, type LoaderFunctionArgs } from "@remix-run/node";

/**
 * Liveness for the container and the load balancer: 200 while the server can serve, 503 once it
 * is stopping. Nothing about the lead pipeline: a public probe must not learn when the form
 * service is down (that is in the metrics, decision 0013). Never calls the form service.
 */
export function loader({ context }: LoaderFunctionArgs) {
  const ok = context.serving();
  return json({ status: ok ? "ok" : "unavailable" }, { status: ok ? 200 : 503, headers: { "Cache-Control": "no-store" } });
}
