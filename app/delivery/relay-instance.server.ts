import { site } from "~/content/site";
import { getConfig } from "~/server/config.server";
import { createRelay, type Relay } from "./relay.server";

let relay: Relay | undefined;

/** The process's one relay, built from the configuration checked at start. */
export function getRelay(): Relay {
  if (!relay) {
    const cfg = getConfig({ formInbox: site.email });
    relay = createRelay({
      provider: cfg.formProvider,
      endpoint: cfg.formEndpoint,
      accessKey: cfg.formAccessKey,
      inbox: cfg.formInbox,
      outboxFile: cfg.outboxFile,
      timeoutMs: cfg.formTimeoutMs,
    });
  }
  return relay;
}
