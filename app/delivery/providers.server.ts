/**
 * Payload shapes of the supported form services. Server only: requests carry the access key.
 */
import type { PostInit } from "./http-post.server";
import type { Lead as OutgoingMessage } from "~/context";

/** The form services the relay can talk to (FORM_PROVIDER); config.server.ts validates against it. */
export const PROVIDER_NAMES = ["web3forms", "formspree", "webhook"] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/** Where and how to send: the submit URL, the service's key and the agency inbox. */
export interface ProviderConfig {
  endpoint: string;
  accessKey: string;
  inbox: string;
}

export interface Provider {
  name: ProviderName;
  /** The HTTP request to make for one message (always a JSON POST). */
  buildRequest(msg: OutgoingMessage, cfg: ProviderConfig): { url: string; init: PostInit };
  /** Whether the service accepted the message, from the status and the (leniently parsed) body. */
  isSuccess(status: number, body: unknown): boolean;
}

const isOk = (status: number) => status >= 200 && status <= 299;
const field = (body: unknown, key: string): unknown =>
  typeof body === "object" && body !== null ? (body as Record<string, unknown>)[key] : undefined;

function jsonPost(url: string, payload: unknown, headers: Record<string, string> = {}) {
  return {
    url,
    init: {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", ...headers },
      body: JSON.stringify(payload),
    } satisfies PostInit,
  };
}

/** Web3Forms (the default, SPEC.md section 7): the key travels in the body as `access_key`. */
export const web3forms: Provider = {
  name: "web3forms",
  buildRequest: (msg, cfg) =>
    jsonPost(cfg.endpoint, {
      access_key: cfg.accessKey,
      subject: msg.subject,
      to: cfg.inbox,
      from_name: msg.fromName,
      message: msg.text,
      replyto: msg.replyTo,
    }),
  isSuccess: (status, body) => isOk(status) && field(body, "success") !== false,
};

/** Formspree: the form id is in the endpoint (`https://formspree.io/f/<id>`); the inbox is set there. */
export const formspree: Provider = {
  name: "formspree",
  buildRequest: (msg, cfg) =>
    jsonPost(cfg.endpoint, { email: msg.replyTo, _subject: msg.subject, message: msg.text, name: msg.fromName }),
  isSuccess: (status, body) => {
    const errors = field(body, "errors");
    return isOk(status) && (errors === undefined || errors === null || (Array.isArray(errors) && errors.length === 0));
  },
};

/** A generic JSON webhook authenticated with `Authorization: Bearer <key>`. */
export const webhook: Provider = {
  name: "webhook",
  buildRequest: (msg, cfg) =>
    jsonPost(
      cfg.endpoint,
      { subject: msg.subject, from_name: msg.fromName, reply_to: msg.replyTo, message: msg.text },
      { Authorization: `Bearer ${cfg.accessKey}` },
    ),
  isSuccess: (status) => isOk(status),
};

export const PROVIDERS: Readonly<Record<ProviderName, Provider>> = { web3forms, formspree, webhook };
