import { sourceOf } from "./visit";

/**
 * A visit's source as a post without JavaScript shows it: the utm_* fields of the page the form
 * was on (its Referer, our own page); the referring site itself is not known there.
 */
export function refererSource(request: Request): string {
  try {
    return sourceOf(new URL(request.headers.get("referer") ?? ""));
  } catch {
    return "direct";
  }
}
