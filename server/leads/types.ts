import type { Lead } from "~/context";

export type { Lead };

export type StoredLead = Lead & { id: string; acceptedAt: number };

/** Why an attempt failed; `stopped`: the server's stop cut it short. */
type Failure = "http" | "rejected" | "network" | "timeout" | "stopped" | "outbox" | `zoho:${string}`;
/** `retry: false`: refused for good. `record`: Zoho CRM's id. */
export type DeliveryOutcome = { ok: true; status?: number; record?: string } | { ok: false; retry: boolean; reason: Failure; status?: number; cause?: string };

export interface Transport {
  name: string;
  /** `stop` aborts when the server's stop has waited long enough: the attempt then ends at once. */
  deliver(lead: StoredLead, stop?: AbortSignal): Promise<DeliveryOutcome>;
}

export interface LeadStats {
  store: "sqlite" | "postgres";
  /** Since a write or the loop's look failed, until a write goes through. */
  failing: boolean;
  pending: number;
  held: number;
  /** By the rule that held them (`ceiling`, `address`; `unknown`: held before this was kept). */
  heldFor: Record<string, number>;
  /** Each process has its own key: one address may count twice. */
  heldAddresses: number;
  parked: number;
  oldestPendingSeconds: number | null;
}

/** What a queue reports to the metrics: never anything a visitor typed. */
export interface LeadEvents {
  accepted(kind: Lead["kind"]): void;
  attempted(kind: Lead["kind"], outcome: "delivered" | "retried" | "parked", seconds: number): void;
  held(kind: Lead["kind"]): void;
}
