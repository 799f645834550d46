import { calculatorText as text } from "~/content/calculator";
import type { ReactNode } from "react";
import type { Receipt } from "./draft.server";

/**
 * The thanks' next step, at the moment of intent: what happens next (the server's words, with the receipt), then the
 * booking page when the operator set one (BOOKING_URL, with the reference), else `reach`: the agency's phone and email (the page
 * hands them over: app/components is a layer above this one).
 */
export function NextStep({ sent, reach }: { sent: Partial<Receipt> | null; reach: ReactNode }) {
  return (
    <>
      <p>{sent?.next}</p>
      {sent?.booking ? (
        <a className="btn" href={sent.booking}>
          {text.bookCall}
        </a>
      ) : (
        reach
      )}
    </>
  );
}

/** The thanks' reference, which the agency's message ends with (both forms: one component is fewer bytes of the home page's script). */
export function Reference({ reference }: { reference?: string }) {
  return reference ? (
    <p>
      {text.referenceLabel}: <strong className="reference">{reference}</strong>
    </p>
  ) : null;
}
