import type { ZarRate } from "./calculator/pricing";
import type { PrivacyFacts } from "./content/privacy";
import type { FunnelEvent } from "./funnel/visit";
import type { Source, SourceSettings } from "./funnel/source";

/**
 * What the server (server/index.ts) hands every loader, action and entry.server as `context`:
 * the one contract between the Express server and the Remix app. Types only.
 */
/** A lead as the agency receives it: built by an action from validated fields. */
export interface Lead {
  kind: "calculator" | "contact";
  subject: string;
  fromName: string;
  replyTo: string;
  text: string;
  /** The same lead part by part, for a CRM that files each in a field of its own; absent in leads stored before. */
  fields?: LeadFields;
  /** Where the visit came from (app/funnel/source.ts), as the funnel counts it; absent in leads stored before. */
  source?: Source;
}

/** What a lead says, one value a field (each one line but `message`); the text has them all too. */
interface LeadFields {
  /** The person's name, when given. */
  name?: string;
  company?: string;
  phone?: string;
  service: string;
  timeframe?: string;
  complexity?: string;
  estimate?: string;
  /** The visitor's own words: the project description or the contact message. */
  message: string;
}

/** Why a form did not go through: it could not be stored, or its address is over a limit (posts, or leads held). */
export type FormProblem = "failed" | "rateLimited";

/**
 * Stored (the visitor may be thanked, and shown the reference the agency's message ends with), or
 * why not. A bot's post is answered as stored, with no reference. `first`: this post stored a new
 * lead (not the same form again), so the funnel counts it once.
 */
export type LeadAnswer = { ok: true; reference?: string; first?: boolean } | { ok: false; problem: FormProblem; retryAfter?: number };

/**
 * Short-lived records of one browser's own (server/drafts.ts): the calculator's answers between
 * steps without JavaScript, a sent request's receipt. `owner` is the hash of that browser's cookie
 * (app/forms/visitor.server.ts); only the same owner loads, replaces or deletes a record. `save`
 * with the id of the owner's earlier record replaces it (any other id gets a fresh one); `load`
 * answers undefined for an unknown, expired, malformed or someone else's id.
 */
export interface DraftStore {
  save(owner: string, value: unknown, id?: string): Promise<string>;
  load(owner: string | undefined, id: string): Promise<unknown>;
  delete(owner: string | undefined, id: string): Promise<void>;
}

declare module "@remix-run/node" {
  interface AppLoadContext {
    /** The client's address as the server sees it: the socket's, or what trusted proxies report. */
    clientAddress: string | undefined;
    /** Stores a lead for delivery (held past its address's share: decision 0031); a bot's lead is dropped quietly. */
    submitLead(lead: Lead): Promise<LeadAnswer>;
    /** Whether the server can serve (false once it is stopping): all that /healthz tells. */
    serving(): boolean;
    /** A visitor's own short-lived records: drafts and receipts (server/drafts.ts). */
    drafts: DraftStore;
    /** The server's settings the privacy notice states (server/config.ts). */
    privacy: PrivacyFacts;
    /** BOOKING_URL: the https booking page (Cal.com, Calendly) the thanks offer; undefined when unset. */
    bookingUrl: string | undefined;
    /** USD_ZAR_RATE with its date: every estimate's figure shown or sent says it in rand too; undefined when unset. */
    zar: ZarRate | undefined;
    log: { error(fields: object, event: string): void };
    /**
     * Counts one step of the calculator's funnel for this request's visit (server/funnel.ts), by
     * its source (app/funnel/source.ts) and the user agent's device class. A bot counts
     * nothing; never throws.
     */
    countVisit(request: Request, event: FunnelEvent, source: Source): Promise<void>;
    /** What the operator names as sources: campaigns and referring sites (CAMPAIGNS, REFERRER_SITES). */
    sources: SourceSettings;
  }
}
