import type { LoaderFunctionArgs } from "@remix-run/node";
import { zarNote } from "~/calculator/pricing";

/**
 * What every page's scripts need of the server's settings (app/root.tsx re-exports it, so the browser's copy imports none of
 * this): the rand rate (USD_ZAR_RATE) with its words, the same for every visitor, or null.
 */
export const loader = ({ context: { zar } }: LoaderFunctionArgs) => (zar ? { rate: zar.rate, note: zarNote(zar) } : null);
