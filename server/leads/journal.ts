/**
 * The embedded lead store: an append-only JSON-lines file, each line fsync'd before anyone is told
 * it is stored. One server process owns a journal at a time (a lock next to it); at start the
 * owner replays it and rewrites it with only what is still pending or parked, so delivered leads,
 * whose text already sits in the agency's inbox, are not kept longer than needed.
 */
import { randomUUID } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, writeFile, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { lock } from "proper-lockfile";
import type { Logger } from "../log";
import type { StoredLead } from "./types";

export type JournalRecord =
  | ({ t: "lead" } & StoredLead)
  | { t: "done"; id: string; at: number }
  | { t: "park"; id: string; at: number; reason: string; status?: number }
  | { t: "requeue"; id: string; at: number };

export interface Parked extends StoredLead {
  reason: string;
  status?: number;
  parkedAt: number;
}

/** What a journal says: pending leads (with when their retry window began) and parked ones. */
export interface JournalState {
  pending: Map<string, StoredLead & { since: number }>;
  parked: Map<string, Parked>;
}

export function applyRecord(state: JournalState, record: JournalRecord): void {
  if (record.t === "lead") {
    const { t: _t, ...lead } = record;
    state.pending.set(lead.id, { ...lead, since: lead.acceptedAt });
  } else if (record.t === "done") {
    state.pending.delete(record.id);
    state.parked.delete(record.id);
  } else if (record.t === "park") {
    const pending = state.pending.get(record.id);
    state.pending.delete(record.id);
    if (!pending) return;
    const { since: _since, ...lead } = pending;
    state.parked.set(record.id, { ...lead, reason: record.reason, status: record.status, parkedAt: record.at });
  } else {
    const lead = state.parked.get(record.id);
    state.parked.delete(record.id);
    if (lead) state.pending.set(record.id, { ...lead, since: record.at });
  }
}

/** Reads a journal without owning it (the operator's CLI); a torn or bad line is skipped. */
export async function readJournal(file: string, log?: Logger): Promise<JournalState> {
  const state: JournalState = { pending: new Map(), parked: new Map() };
  const lines = (await readFile(file, "utf8").catch(() => "")).split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      applyRecord(state, JSON.parse(line) as JournalRecord);
    } catch {
      // A crash can leave the last line half written; anything else is worth a look.
      log?.warn({ file, line: i + 1, last: i >= lines.length - 2 }, "lead_journal_line_skipped");
    }
  });
  return state;
}

/** The state as records: pending leads, then parked ones with their park record. */
function snapshot(state: JournalState): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const { since: _since, ...lead } of state.pending.values()) records.push({ t: "lead", ...lead });
  for (const { reason, status, parkedAt, ...lead } of state.parked.values()) records.push({ t: "lead", ...lead }, { t: "park", id: lead.id, at: parkedAt, reason, status });
  return records;
}

export interface Journal {
  state: JournalState;
  append(record: JournalRecord): Promise<void>;
  close(): Promise<void>;
}

/**
 * Takes the journal's lock (waiting up to ~15 s for the lock of a process that died), replays and
 * compacts it, and opens it for appends. Throws if it cannot.
 */
export async function openJournal(file: string, log: Logger, { lockWaitMs = 15_000 } = {}): Promise<Journal> {
  await mkdir(dirname(file), { recursive: true });
  const release = await lock(file, {
    realpath: false,
    stale: 10_000,
    update: 2_000,
    retries: { retries: Math.ceil(lockWaitMs / 1000), minTimeout: 1000, maxTimeout: 1000 },
    onCompromised: (error) => log.error({ err: error, file }, "lead_journal_lock_lost"),
  });
  let handle: FileHandle | undefined;
  try {
    const state = await readJournal(file, log);
    const compacted = `${file}.compact`;
    const out = await open(compacted, "w");
    await out.writeFile(snapshot(state).map((r) => `${JSON.stringify(r)}\n`).join(""));
    await out.sync();
    await out.close();
    await rename(compacted, file);
    const dir = await open(dirname(file), "r");
    await dir.sync().finally(() => dir.close());
    handle = await open(file, "a");
    const appends = handle;
    let queue: Promise<unknown> = Promise.resolve();
    return {
      state,
      // One append at a time; it resolves once the line is on disk.
      append(record) {
        const write = queue.then(async () => {
          await appends.appendFile(`${JSON.stringify(record)}\n`, "utf8");
          await appends.datasync();
          applyRecord(state, record);
        });
        queue = write.catch(() => undefined);
        return write;
      },
      async close() {
        await queue;
        await appends.close();
        await release();
      },
    };
  } catch (error) {
    await handle?.close();
    await release();
    throw error;
  }
}

/**
 * The operator's CLI leaves re-queue requests next to the journal, one file each (written whole,
 * then renamed into place), for the process that owns it to take: ids, or "*" for every parked lead.
 */
export async function requestRequeue(file: string, ids: string[]): Promise<void> {
  const request = `${file}.requeue-${randomUUID()}`;
  await writeFile(`${request}.tmp`, `${ids.join("\n")}\n`);
  await rename(`${request}.tmp`, request);
}

export async function takeRequeueRequests(file: string): Promise<string[]> {
  const prefix = `${basename(file)}.requeue-`;
  const requests = (await readdir(dirname(file)).catch(() => [])).filter((name) => name.startsWith(prefix) && !name.endsWith(".tmp"));
  const ids: string[] = [];
  for (const name of requests) {
    const path = join(dirname(file), name);
    ids.push(...(await readFile(path, "utf8")).split("\n").map((line) => line.trim()).filter(Boolean));
    await rm(path, { force: true });
  }
  return ids;
}
