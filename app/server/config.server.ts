/**
 * Server configuration: read and validate the environment once, fail fast with one clear line.
 *
 * Every variable is trimmed and an empty value counts as unset (so `FORM_ACCESS_KEY=` in a
 * compose file means "no key", and the outbox is used). Error messages name the variable and the
 * rule it breaks, never its value (a value might be a secret).
 *
 * Call `assertConfigOrExit(defaults)` at module load of the server build (e.g. top of
 * entry.server.tsx): remix-serve imports the build before it calls `listen`, so a bad configuration
 * stops the process with exit code 1 before the port is ever opened.
 */
import { z } from "zod";
import { PROVIDER_NAMES as FORM_PROVIDERS, type ProviderName as FormProvider } from "~/delivery/providers.server";

export const DEFAULT_FORM_ENDPOINT = "https://api.web3forms.com/submit";
export const DEFAULT_OUTBOX_FILE = "data/outbox.jsonl";
export const DEFAULT_FORM_TIMEOUT_MS = 10_000;

export interface ConfigDefaults {
  /** The `to` address when FORM_INBOX is unset: the site's public email. */
  formInbox: string;
}

export interface Config {
  /** Informational: remix-serve reads PORT itself. */
  port: number | undefined;
  /** Informational: remix-serve reads HOST itself. */
  host: string | undefined;
  formProvider: FormProvider;
  formEndpoint: string;
  /** Undefined when unset or blank: messages go to the outbox file instead. */
  formAccessKey: string | undefined;
  formInbox: string;
  outboxFile: string;
  formTimeoutMs: number;
  trustProxy: boolean;
  redisUrl: string | undefined;
  /** Canonical origin (scheme://host[:port]), no path. */
  siteUrl: string | undefined;
}

const httpUrl = (what: string) =>
  z.string().refine(
    (v) => {
      try {
        const u = new URL(v);
        return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
      } catch {
        return false;
      }
    },
    { message: `must be ${what}` },
  );

const schema = z
  .object({
    PORT: z
      .string()
      .regex(/^\d{1,5}$/, { message: "must be a whole number from 1 to 65535" })
      .transform(Number)
      .refine((n) => n >= 1 && n <= 65535, { message: "must be a whole number from 1 to 65535" })
      .optional(),
    HOST: z.string().optional(),
    FORM_PROVIDER: z
      .enum(FORM_PROVIDERS, { message: `must be one of ${FORM_PROVIDERS.join(", ")}` })
      .default("web3forms"),
    FORM_ENDPOINT: httpUrl("an http(s) URL").optional(),
    FORM_ACCESS_KEY: z.string().optional(),
    FORM_INBOX: z.email({ message: "must be an email address" }).optional(),
    OUTBOX_FILE: z.string().default(DEFAULT_OUTBOX_FILE),
    FORM_TIMEOUT_MS: z
      .string()
      .regex(/^\d+$/, { message: "must be a whole number of milliseconds from 1000 to 30000" })
      .transform(Number)
      .refine((n) => n >= 1000 && n <= 30_000, {
        message: "must be a whole number of milliseconds from 1000 to 30000",
      })
      .default(DEFAULT_FORM_TIMEOUT_MS),
    TRUST_PROXY: z
      .string()
      .transform((v) => v.toLowerCase())
      .refine((v) => ["1", "true", "0", "false"].includes(v), {
        message: "must be one of 1, true, 0, false",
      })
      .transform((v) => v === "1" || v === "true")
      .default(false),
    REDIS_URL: z
      .string()
      .refine(
        (v) => {
          try {
            const u = new URL(v);
            return (u.protocol === "redis:" || u.protocol === "rediss:") && u.hostname !== "";
          } catch {
            return false;
          }
        },
        { message: "must be a redis:// or rediss:// URL" },
      )
      .optional(),
    SITE_URL: httpUrl("an http(s) URL (the canonical origin, e.g. https://example.com)")
      .transform((v) => new URL(v).origin)
      .optional(),
  })
  .superRefine((env, ctx) => {
    // The default endpoint is Web3Forms'; another payload shape needs its own address.
    if (env.FORM_PROVIDER !== "web3forms" && env.FORM_ENDPOINT === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["FORM_ENDPOINT"],
        message: `must be set when FORM_PROVIDER is ${env.FORM_PROVIDER}`,
      });
    }
  });

const VARIABLES = Object.keys(schema.shape);

/** Trim every known variable; blank means unset. */
function normalise(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const name of VARIABLES) {
    const raw = env[name];
    const trimmed = raw?.trim();
    out[name] = trimmed === "" ? undefined : trimmed;
  }
  return out;
}

/**
 * Validate `env` (normally `process.env`). Throws an Error whose message is one line,
 * e.g. "Invalid configuration: FORM_ENDPOINT must be an http(s) URL"; several problems are joined
 * with "; " on that same line.
 */
export function parseConfig(
  env: Record<string, string | undefined>,
  defaults: ConfigDefaults,
): Config {
  const result = schema.safeParse(normalise(env));
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = typeof issue.path[0] === "string" ? issue.path[0] : "environment";
      return `${name} ${issue.message}`;
    });
    throw new Error(`Invalid configuration: ${[...new Set(problems)].join("; ")}`);
  }
  const e = result.data;
  const formInbox = e.FORM_INBOX ?? defaults.formInbox;
  if (!z.email().safeParse(formInbox).success) {
    throw new Error("Invalid configuration: FORM_INBOX default (the site's public email) is not an email address");
  }
  return {
    port: e.PORT,
    host: e.HOST,
    formProvider: e.FORM_PROVIDER,
    formEndpoint: e.FORM_ENDPOINT ?? DEFAULT_FORM_ENDPOINT,
    formAccessKey: e.FORM_ACCESS_KEY,
    formInbox,
    outboxFile: e.OUTBOX_FILE,
    formTimeoutMs: e.FORM_TIMEOUT_MS,
    trustProxy: e.TRUST_PROXY,
    redisUrl: e.REDIS_URL,
    siteUrl: e.SITE_URL,
  };
}

let cached: Config | undefined;

/**
 * The configuration from `process.env`, parsed on the first call and memoized; `defaults` is only
 * read on that first call. Throws like `parseConfig`.
 */
export function getConfig(defaults: ConfigDefaults): Config {
  cached ??= parseConfig(process.env, defaults);
  return cached;
}

/** Tests only: forget the memoized configuration. */
export function resetConfigForTests(): void {
  cached = undefined;
}

/**
 * Parse the configuration or stop the process: prints one JSON line to stderr
 * ({"time","level":"error","event":"config_invalid","error":"Invalid configuration: ..."}) and
 * exits with code 1.
 */
export function assertConfigOrExit(defaults: ConfigDefaults): Config {
  try {
    return getConfig(defaults);
  } catch (error) {
    const line = error instanceof Error ? error.message : "Invalid configuration";
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: "error", event: "config_invalid", error: line })}\n`,
    );
    process.exit(1);
  }
}

/** A loggable summary: secrets become presence flags, credentials are stripped from REDIS_URL. */
export function describeConfig(cfg: Config): Record<string, unknown> {
  let redis: string | undefined;
  if (cfg.redisUrl) {
    const u = new URL(cfg.redisUrl);
    redis = `${u.protocol}//${u.host}`;
  }
  return {
    formProvider: cfg.formProvider,
    formEndpoint: new URL(cfg.formEndpoint).origin,
    formDelivery: cfg.formAccessKey ? "provider" : "outbox",
    outboxFile: cfg.outboxFile,
    formTimeoutMs: cfg.formTimeoutMs,
    trustProxy: cfg.trustProxy,
    rateLimitStore: redis ? `redis ${redis}` : "memory",
    siteUrl: cfg.siteUrl,
  };
}
