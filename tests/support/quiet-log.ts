import { Writable } from "node:stream";
import { createLogger } from "../../server/log";

/** A logger for unit tests that writes nowhere. */
export const quietLog = createLogger(new Writable({ write: (_chunk, _encoding, done) => done() }));

/** A logger for unit tests that keeps each line it is given, parsed, e.g. to wait for an event. */
export function recordingLog() {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger(new Writable({ write: (chunk, _encoding, done) => (lines.push(JSON.parse(String(chunk)) as Record<string, unknown>), done()) }));
  return { log, lines, count: (event: string) => lines.filter((l) => l.event === event).length };
}

/** Resolves once `check` holds, looking every 20 ms; throws after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 8_000): Promise<void> {
  for (const started = Date.now(); !(await check()); await new Promise((r) => setTimeout(r, 20))) if (Date.now() - started > ms) throw new Error("timed out");
}
