/**
 * The operator's campaign names and referring sites, kept in the lead store (`npm run -s leads -- campaigns|sites`) so
 * that every container on one database counts by the same lists, and a change needs no restart (decision 0052).
 */
import type { SourceSettings } from "~/funnel/source";
import type { Db, Sql } from "./db";
import type { Logger } from "./log";

export type List = "campaigns" | "sites";
/** How often a server reads the lists again: a change counts everywhere within a minute. */
const REFRESH_MS = 15_000;

export async function readLists(db: Sql): Promise<Record<List, string[]>> {
  const rows = await db.all("SELECT list, name FROM source_names ORDER BY name");
  const of = (list: List) => rows.filter((row) => row.list === list).map((row) => String(row.name));
  return { campaigns: of("campaigns"), sites: of("sites") };
}

/** Names (tidied and checked by the caller) added to a list; resolves with those it did not have. */
export async function addNames(db: Sql, list: List, names: Iterable<string>): Promise<string[]> {
  const added: string[] = [];
  for (const name of names)
    if (await db.run("INSERT INTO source_names (list, name) VALUES (?, ?) ON CONFLICT (list, name) DO NOTHING", [list, name])) added.push(name);
  return added;
}

export const removeName = (db: Sql, list: List, name: string) => db.run("DELETE FROM source_names WHERE list = ? AND name = ?", [list, name]);

/**
 * The settings a server counts by: CAMPAIGNS and REFERRER_SITES (`start`) added to the store's lists (a start removes
 * nothing), then the store's lists, read again every `everyMs`. A failed read keeps the last lists and is warned of once
 * until one succeeds: a count is worth less than serving. `close` at the stop.
 */
export async function liveSources(db: Db, start: SourceSettings, log: Pick<Logger, "warn">, everyMs = REFRESH_MS) {
  let [names, sites, added, failing] = [start.names, start.sites, false, false];
  async function read() {
    try {
      if (!added) added = (await addNames(db, "campaigns", start.names), await addNames(db, "sites", start.sites), true);
      const lists = await readLists(db);
      [names, sites, failing] = [new Set(lists.campaigns), lists.sites, false];
    } catch (error) {
      if (!failing) log.warn({ err: error }, "source_lists_not_read");
      failing = true;
    }
  }
  await read();
  const timer = setInterval(() => void read(), everyMs).unref();
  const settings: SourceSettings = {
    get names() {
      return names;
    },
    get sites() {
      return sites;
    },
    ownHosts: start.ownHosts,
  };
  return { settings, close: () => clearInterval(timer) };
}
