import type { Lead } from "~/context";

export type { Lead };

/** A lead once stored: its id goes into the message ("Reference: …") so a rare duplicate shows. */
export interface StoredLead extends Lead {
  id: string;
  acceptedAt: number;
}

/**
 * What one delivery attempt came to; `retry: false` means the service refused the lead for good.
 * `record`: the id the receiving CRM gave the lead (Zoho CRM), kept beside it. A reason
 * `zoho:<code>` is Zoho's own word for a refusal (e.g. `zoho:INVALID_DATA`, `zoho:invalid_code`);
 * `stopped`: the server's stop cut the attempt short before the service answered.
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
  /** The store is not open, or a write (a lead, an outcome) or the loop's look failed, until a write goes through. */
  failing: boolean;
  pending: number;
  /** Stored over the hourly ceiling: they go out on their own as the last hour has room, or at `npm run -s leads -- release`. */
  held: number;
  /** Held leads by the rule that held them (`ceiling`, `address`; `unknown`: held before this was kept). */
  heldFor: Record<string, number>;
  /** Distinct address codes among held leads (each process has its own key: one address may count twice). */
  heldAddresses: number;
  parked: number;
  oldestPendingSeconds: number | null;
}

/**
 * What a queue reports as it works, for the metrics (server/metrics.ts): kinds, outcomes and
 * durations, never anything a visitor typed.
 */
export interface LeadEvents {
  accepted(kind: Lead["kind"]): void;
  /** One delivery attempt and what came of it: delivered, to be retried, or parked. */
  attempted(kind: Lead["kind"], outcome: "delivered" | "retried" | "parked", seconds: number): void;
  /** A lead stored over the hourly ceiling (LEADS_PER_HOUR) or its address's share: kept, not delivered until let go. */
  held(kind: Lead["kind"]): void;
}
