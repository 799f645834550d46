import { json } from "@remix-run/node";
import pkg from "../../package.json";

/** Liveness for the container and load balancer. It never touches the form service. */
export function loader() {
  return json({ status: "ok", version: process.env.APP_VERSION || pkg.version }, { headers: { "Cache-Control": "no-store" } });
}
