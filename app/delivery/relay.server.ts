/**
 * The relay: sends a message to the configured form service with a hard timeout, or appends it to
 * a local outbox file when no access key is set. Server only. `deliver` never throws, and logs
 * exactly one event per delivery, never the access key nor the message text.
 */
import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";

import { httpPost, type HttpPost } from "./http-post.server";
import type { Lead as OutgoingMessage } from "~/context";
import { PROVIDERS, type ProviderName } from "./providers.server";

export type { ProviderName } from "./providers.server";

const DEFAULT_TIMEOUT_MS = 10_000;

export interface RelayConfig {
  provider: ProviderName;
  /** The submit URL. */
  endpoint: string;
  /** The service's key. Unset or blank: messages go to `outboxFile` instead of the service. */
  accessKey?: string;
  /** The agency inbox (`to`). */
  inbox: string;
  /** JSON-lines file used when there is no key; its directory is created as needed. */
  outboxFile: string;
  /** Overall limit for one delivery, response body included. Default 10,000 ms. */
  timeoutMs?: number;
}

export interface RelayDeps {
  /** The transport; default `httpPost` (node:http). Anything fetch-shaped works, e.g. in tests. */
  fetch?: HttpPost;
  /** Receives one structured event per delivery. Default: one JSON line through log.server. */
  log?: (event: Record<string, unknown>) => void;
  now?: () => number;
}

/** "http": non-2xx status; "rejected": 2xx but the service said no; "outbox": the file write failed. */
export type FailureReason = "http" | "rejected" | "network" | "timeout" | "outbox";
export type DeliveryResult = { ok: true; via: "provider" | "outbox" } | { ok: false; reason: FailureReason };

export interface Relay {
  /** Delivers one message. Resolves within about `timeoutMs`; never rejects. */
  deliver(msg: OutgoingMessage): Promise<DeliveryResult>;
}


function parseLenient(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A short, safe token describing an error (e.g. "ECONNREFUSED"), never its message. */
function causeOf(error: unknown): string | undefined {
  const e = error as { cause?: { code?: unknown }; code?: unknown; name?: unknown } | null;
  const candidate = e?.cause?.code ?? e?.code ?? e?.name;
  return typeof candidate === "string" && /^[A-Za-z0-9_]{1,40}$/.test(candidate) ? candidate : undefined;
}

type Outcome = { kind: "response"; status: number; body: unknown } | { kind: "timeout" } | { kind: "error"; error: unknown };

export function createRelay(cfg: RelayConfig, deps: RelayDeps = {}): Relay {
  const now = deps.now ?? Date.now;
  const timeoutMs = cfg.timeoutMs !== undefined && cfg.timeoutMs > 0 ? cfg.timeoutMs : DEFAULT_TIMEOUT_MS;
  const provider = PROVIDERS[cfg.provider];
  const accessKey = cfg.accessKey?.trim() ?? "";
  const log = (event: Record<string, unknown>) => {
    try {
      deps.log?.(event);
    } catch {
      // A broken logger must not break delivery.
    }
  };
  let outboxQueue: Promise<unknown> = Promise.resolve();

  async function toOutbox(msg: OutgoingMessage): Promise<DeliveryResult> {
    const file = cfg.outboxFile;
    const line = `${JSON.stringify({
      at: new Date(now()).toISOString(),
      subject: msg.subject,
      to: cfg.inbox,
      from_name: msg.fromName,
      reply_to: msg.replyTo,
      message: msg.text,
    })}\n`;
    // Appends are chained so concurrent deliveries never interleave their lines.
    const write = outboxQueue.then(async () => {
      await mkdir(dirname(file), { recursive: true });
      await appendFile(file, line, "utf8");
    });
    outboxQueue = write.catch(() => undefined);
    try {
      await write;
      log({ event: "delivery", ok: true, via: "outbox", file });
      return { ok: true, via: "outbox" };
    } catch (error) {
      log({ event: "delivery", ok: false, via: "outbox", file, reason: "outbox", cause: causeOf(error) });
      return { ok: false, reason: "outbox" };
    }
  }

  async function toProvider(msg: OutgoingMessage): Promise<DeliveryResult> {
    const started = now();
    const controller = new AbortController();
    let timedOut = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The hard deadline also covers a fetch that ignores the signal or a body that stalls.
    const deadline = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
        resolve({ kind: "timeout" });
      }, timeoutMs);
    });
    const attempt = (async (): Promise<Outcome> => {
      const { url, init } = provider.buildRequest(msg, { endpoint: cfg.endpoint, accessKey, inbox: cfg.inbox });
      const res = await (deps.fetch ?? httpPost)(url, { ...init, signal: controller.signal });
      const body = parseLenient(await res.text());
      return { kind: "response", status: res.status, body };
    })().catch((error: unknown): Outcome => (timedOut ? { kind: "timeout" } : { kind: "error", error }));

    let outcome: Outcome;
    try {
      outcome = await Promise.race([attempt, deadline]);
    } finally {
      clearTimeout(timer);
    }

    const base = { event: "delivery", provider: provider.name };
    const durationMs = now() - started;
    if (outcome.kind === "response") {
      const { status, body } = outcome;
      if (provider.isSuccess(status, body)) {
        log({ ...base, ok: true, status, durationMs });
        return { ok: true, via: "provider" };
      }
      const reason = status >= 200 && status <= 299 ? "rejected" : "http";
      log({ ...base, ok: false, status, reason, durationMs });
      return { ok: false, reason };
    }
    if (outcome.kind === "timeout") {
      log({ ...base, ok: false, reason: "timeout", durationMs });
      return { ok: false, reason: "timeout" };
    }
    log({ ...base, ok: false, reason: "network", cause: causeOf(outcome.error), durationMs });
    return { ok: false, reason: "network" };
  }

  return {
    async deliver(msg) {
      try {
        return accessKey === "" ? await toOutbox(msg) : await toProvider(msg);
      } catch (error) {
        // Not expected; kept so that a bug here can never surface as a thrown error to the visitor.
        log({ event: "delivery", ok: false, provider: cfg.provider, reason: "network", cause: causeOf(error) });
        return { ok: false, reason: "network" };
      }
    },
  };
}
