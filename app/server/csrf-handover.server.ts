/**
 * Hands the cross-site decision for form posts to our own check (origin-check.server.ts), which
 * answers 403. See docs/decisions/0004-cross-site-posts-refused-by-our-check.md.
 *
 * Remix 2's server runtime compares a document POST's Origin with Host and, on a mismatch, throws
 * a plain Error before any action runs: the visitor gets an empty 500 and the operator an error
 * log for what is an ordinary refused request. Its client-side (?_data) posts get no check at all.
 * Every action in this app starts with receiveFormPost(), whose check is a superset (Fetch
 * Metadata, then Origin, then Referer), so Remix's is replaced by a no-op here.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** True when the handover happened; false (Remix's own check stays in place) if its shape changed. */
export function handOverCsrfCheck(): boolean {
  try {
    const actions = require("@remix-run/server-runtime/dist/actions.js") as { throwIfPotentialCSRFAttack?: unknown };
    if (typeof actions.throwIfPotentialCSRFAttack !== "function") return false;
    actions.throwIfPotentialCSRFAttack = () => {};
    return true;
  } catch {
    return false;
  }
}
