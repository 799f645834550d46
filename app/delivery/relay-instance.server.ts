import { site } from "~/content/site";
import { createRelay, relayConfigFromEnv, type Relay } from "./relay.server";

let relay: Relay | undefined;

/** The process's one relay, configured from the environment on first use. */
export function getRelay(): Relay {
  relay ??= createRelay(relayConfigFromEnv(process.env, { inbox: site.email }));
  return relay;
}
