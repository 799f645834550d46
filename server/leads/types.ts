import type { Lead } from "~/context";

export type { Lead };

/** A lead once stored: its id goes into the message ("Reference: …") so a rare duplicate shows. */
export interface StoredLead extends Lead {
  id: string;
  acceptedAt: number;
}

/**
 * What one delivery attempt came to; `retry: false`: refused for good. `record`: the id Zoho CRM gave
 * the lead. `zoho:<code>`: Zoho's own word for a refusal; `stopped`: the server's stop cut it short.
 */
export type DeliveryOutcome =
  | { ok: true; status?: number; record?: string }
  | {
      ok: false;
      retry: boolean;
      reason: "http" | "rejected" | "network" | "timeout" | "stopped" | "outbox" | `zoho:${string}`;
      status?: number;
      cause?: string;
    };

export interface Transport {
  name: string;
  /** One attempt; `stop` aborts when the server's stop has waited for it long enough (it then ends at once). */
  deliver(lead: StoredLead, stop?: AbortSignal): Promise<DeliveryOutcome>;
}

/** What the metrics report: counts and ages, never anything a visitor typed. */
export interface LeadStats {
  store: "sqlite" | "postgres";
  /** The store is not open, or a write or the loop's look failed, until a write goes through. */
  failing: boolean;
  pending: number;
  held: number;
  /** Held leads by the rule that held them (`ceiling`, `address`; `unknown`: held before this was kept). */
  heldFor: Record<string, number>;
  /** Distinct address codes among held leads (each process has its own key: one address may count twice). */
  heldAddresses: number;
  parked: number;
  oldestPendingSeconds: number | null;
}

/** What a queue reports as it works, for the metrics: kinds, outcomes and durations, never anything a visitor typed. */
export interface LeadEvents {
  accepted(kind: Lead["kind"]): void;
  attempted(kind: Lead["kind"], outcome: "delivered" | "retried" | "parked", seconds: number): void;
  held(kind: Lead["kind"]): void;
}
