/**
 * The chaos run (issue 30): mixed traffic against real site processes while random faults hit
 * them, then a count of every lead. Visitors send calculator requests and contact messages, as a
 * browser without JavaScript posts them and as Remix's fetch does with it, valid and not; a visitor
 * whose answer fails (a dead, paused or full site) sends the same form again until thanked, as a
 * person (or the page, once back online) would. Two variants, side by side, each site's data folder
 * a small tmpfs (SQLite's store; the outbox's place):
 * - SQLite alone: kill -9 of the site (restarted), SIGSTOP and SIGCONT, a full disk, a second
 *   server on the same data folder (its wall clock 30 s behind), and a form service that is slow,
 *   failing, hanging, refusing or lying (a 200 that is not success);
 * - two sites on one PostgreSQL (DATABASE_URL), a visitor's post going to either: kill -9 of a
 *   site, SIGSTOP, PostgreSQL restarted with an immediate shutdown (it recovers from its WAL, as
 *   after a crash), PostgreSQL paused (SIGSTOP) for a few seconds, and the same service faults.
 * Then, with everything healthy, the leads still pending drain, and the run prints and asserts
 * "thanked N, delivered once N, twice 0, never 0, delivered but never thanked 0". A lead counts by
 * its reference, the key a receiver drops a repeat by: where no server can know whether the
 * service took it (killed right after, or paused past its claim while the other site ran), it is
 * sent again with the same one (decision 0046, "Exactly once, now").
 *
 * The faulty phase runs by thanked leads, not by time, with a fault started every 1.5-4 s but never
 * more than one per three leads thanked, so a slow or busy machine sends as many leads through as
 * many faults as a fast one. Each fault is of a kind met least so far: the default run, until 15
 * leads are thanked and every kind was met, puts leads through each kind of fault at least once,
 * each of which is also proven alone elsewhere (exactly-once, lead-store, lead-delivery,
 * postgres.spec); the soak (SOAK=1: 100 leads, or CHAOS_LEADS) meets each kind about seven times,
 * in more of their overlaps. Should no lead at all be thanked for two minutes, the run fails, saying so.
 *
 * The seed of every random choice is printed at start and on failure; `CHAOS_SEED=<n>` replays the
 * same choices (the timing of real processes still varies). Ports: opsPort 184-185 (SQLite) and
 * 187-188 (PostgreSQL); each site's log in the test's output folder.
 */
import { rmSync } from "node:fs";
import { request } from "node:http";
import { expect, test } from "@playwright/test";
import type { FakeMode } from "../support/fake-form-service";
import type { Postgres } from "../support/postgres";
import { keyed, type Served, sleep } from "../support/server";
import { opsPort } from "../support/sites";
import { SOAK, startedByEachTest } from "../support/started";
import { fill } from "../support/tmpfs.mjs";

const { fakeService, postgres, site, tmpfs, undo } = startedByEachTest();

const SEED = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CHAOS_LEADS = Number(process.env.CHAOS_LEADS ?? (SOAK ? 100 : 15));
/** A fault starts no sooner than this many leads after the one before. */
const LEADS_PER_FAULT = 3;
/** No lead thanked for this long, with faults that each undo themselves within seconds: the sites stopped thanking. */
const STALL_MS = 120_000;
/** FORM_TIMEOUT_MS: a claim lasts it and 5 s more, the longest a second send can come after a first. */
const TIMEOUT_MS = 2_000;

/** mulberry32: a small seeded generator, so a seed replays the run's choices. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    between: (low: number, high: number) => low + Math.floor(next() * (high - low)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

/** A site process on a port and data folder, restarted on the same ones; `busy` while a fault holds it. */
interface Site {
  name: string;
  port: number;
  env: Record<string, string>;
  served?: Served;
  busy: boolean;
}

const up = (site: Site) => !!site.served && site.served.child.exitCode === null && site.served.child.signalCode === null;

/** The form a visitor sends: valid ones carry `chaos<n>z`, found again in what the service accepted. */
function form(n: number, kind: "calculator" | "contact", valid: boolean): Record<string, string> {
  const email = valid ? `visitor${n}@example.com` : "not-an-email";
  if (kind === "contact") return { formName: "contact", name: "Ada Lovelace", email, service: "seo", message: `Please call me back (chaos${n}z).` };
  const steps = { "state.step": "5", "state.service": "seo", "state.timeframe": "urgent", "state.complexity": "complex", "state.description": "A shop." };
  return { formName: "calculator", ...steps, name: "Ada", companyName: `Chaos Co chaos${n}z`, email, phone: "+27 11 555 0100" };
}

/** One post, as a browser without JavaScript (a 303) or Remix's fetch with it (a 204 naming the redirect). */
function post(site: Site, fields: Record<string, string>, js: boolean, localAddress: string): Promise<"thanked" | "answered" | "retry"> {
  const body = new URLSearchParams(fields).toString();
  const url = `http://127.0.0.1:${site.port}`;
  const headers = {
    Origin: url,
    "Sec-Fetch-Site": "same-origin",
    "Content-Type": "application/x-www-form-urlencoded",
    "Content-Length": Buffer.byteLength(body),
  };
  return new Promise((resolve) => {
    const req = request(`${url}/?index${js ? "&_data=routes%2F_index" : ""}`, { method: "POST", localAddress, headers, timeout: 6_000 }, (res) => {
      res.resume();
      const to = String(res.headers[js ? "x-remix-redirect" : "location"] ?? "");
      const status = res.statusCode ?? 0;
      res.on("end", () => resolve(status === (js ? 204 : 303) && to.includes("sent=") ? "thanked" : status >= 500 || status === 429 ? "retry" : "answered"));
      res.on("error", () => resolve("retry"));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve("retry"));
    req.end(body);
  });
}

for (const [index, variant] of (["SQLite alone", "two sites on one PostgreSQL"] as const).entries()) {
  test(`chaos run, ${variant}: every thanked lead is delivered exactly once, and nothing else is`, async ({}, testInfo) => {
    // Over 30 s: the faulty phase (0.5-1.1 s a lead on a core shared with a busy loop; 3 s a lead
    // allowed, and a minute for the faults), then the pending leads' drain (their retries wait up to
    // a minute after a run of failures; a dead or paused process's claim 7 s; 180 s allowed), then
    // a claim's length in which a second send would show.
    test.setTimeout(CHAOS_LEADS * 3_000 + 300_000);
    const random = generator(SEED + index);
    console.log(`chaos run (${variant}): CHAOS_SEED=${SEED}`);
    testInfo.annotations.push({ type: "CHAOS_SEED", description: String(SEED) });
    const timeline: string[] = [];
    const began = Date.now();
    const note = (what: string) => timeline.push(`${((Date.now() - began) / 1000).toFixed(1)}s ${what}`);

    const cluster: Postgres | undefined = index === 1 ? await postgres() : undefined;
    const databaseUrl = cluster && (await cluster.database("chaos"));
    const fake = await fakeService();
    const folders: string[] = [];
    const newSite = (name: string, port: number, dir = tmpfs("32m"), extra: Record<string, string> = {}): Site => {
      if (!folders.includes(dir)) folders.push(dir);
      const store: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : {};
      return { name, port, busy: false, env: keyed(fake, dir, { FORM_TIMEOUT_MS: String(TIMEOUT_MS), LEADS_PER_HOUR: "100000", ...store, ...extra }) };
    };
    /** Set when the run ends, however: no fault restarts anything after it, no visitor posts again. */
    let over = false;
    /** Sites that ended with no fault on them (a crash, or a signal from outside the test): the run stops at once, and fails naming them. */
    const exitedAlone: string[] = [];
    /** (Re)starts a site, again until it listens (a full disk may stop a start, a loaded machine delay it). */
    const start = async (s: Site) => {
      while (!over) {
        const served = (s.served = site(s.port, s.env));
        if (
          await served.listening.then(
            () => true,
            () => false,
          )
        )
          // prettier-ignore
          return void served.exited.then(({ code, signal }) => {
            if (s.busy || over) return;
            exitedAlone.push(`${s.name} (${signal ?? `exit ${code}`})`);
            note(`${s.name} ended by itself (${signal ?? `exit ${code}`}), no fault on it`);
          });
        served.kill();
        await served.exited; // its port free again
        await sleep(300);
      }
    };
    const sites = [newSite("a", opsPort(index === 0 ? 184 : 187))];
    if (cluster) sites.push(newSite("b", opsPort(188)));
    // SQLite: a second server on the folder already served, started and stopped by its fault, its
    // wall clock 30 s behind (claims are on the host's monotonic clock, which both read alike).
    const behind = { NODE_OPTIONS: "--import=data:text/javascript,Date.now=((now)=>()=>now()-30000)(Date.now)" };
    const second = cluster ? undefined : newSite("second", opsPort(185), folders[0], behind);
    /** Every site a visitor may reach: on PostgreSQL either of the two, as behind a load balancer. */
    const reachable = () => [...sites, ...(second ? [second] : [])].filter(up);

    /** The kinds of fault, each resolving once it is undone; `acted` counts those that found something to act on. */
    const acted = new Map<string, number>();
    const act = (kind: string, what: string) => (acted.set(kind, (acted.get(kind) ?? 0) + 1), note(what));
    const siteFaults = {
      async kill() {
        const s = random.pick(sites.filter((x) => !x.busy && up(x)));
        if (!s) return;
        s.busy = true;
        act("kill", `kill -9 ${s.name}`);
        s.served!.kill();
        await s.served!.exited;
        await sleep(random.between(100, 2_000));
        await start(s);
        note(`${s.name} restarted`);
        s.busy = false;
      },
      async pause() {
        const s = random.pick(sites.filter((x) => !x.busy && up(x)));
        if (!s) return;
        s.busy = true;
        const ms = random.between(500, 10_000);
        act("pause", `SIGSTOP ${s.name} for ${ms} ms`);
        s.served!.child.kill("SIGSTOP");
        await sleep(ms);
        s.served!.child.kill("SIGCONT");
        s.busy = false;
      },
      async service() {
        const mode = random.pick<FakeMode>(["slow", "fail500", "hang", "successFalse", "html200", "refuse"]);
        const delay = random.between(500, 3_000);
        act("service", `form service ${mode}${mode === "slow" ? ` ${delay} ms` : ""}`);
        fake.setMode(mode, delay);
        await sleep(random.between(1_000, 6_000));
        fake.setMode("ok");
      },
    };
    let diskBusy = false;
    const sqliteFaults = (second: Site) => ({
      async disk() {
        if (diskBusy) return;
        diskBusy = true;
        const ms = random.between(500, 4_000);
        act("disk", `a's disk full for ${ms} ms`);
        const filler = fill(folders[0]!);
        await sleep(ms);
        rmSync(filler);
        diskBusy = false;
      },
      async second() {
        if (second.busy) return;
        second.busy = true;
        act("second", "a second server on a's folder");
        await start(second);
        await sleep(random.between(2_000, 8_000));
        const gracefully = random.next() < 0.5;
        note(`the second server ${gracefully ? "stopped (SIGTERM)" : "killed -9"}`);
        second.served!.child.kill(gracefully ? "SIGTERM" : "SIGKILL");
        await second.served!.exited;
        second.busy = false;
      },
    });
    /** One fault of the database at a time: a restart of a paused cluster would only be a restart. */
    let postgresBusy = false;
    const postgresFaults = (cluster: Postgres) => ({
      async restart() {
        if (postgresBusy) return;
        postgresBusy = true;
        act("restart", "PostgreSQL: immediate shutdown");
        try {
          await cluster.restart({ mode: "immediate" });
          note("PostgreSQL answers again");
        } finally {
          postgresBusy = false;
        }
      },
      async stall() {
        if (postgresBusy) return;
        postgresBusy = true;
        const ms = random.between(1_000, 6_000);
        act("stall", `PostgreSQL paused (SIGSTOP) for ${ms} ms`);
        cluster.pause();
        await sleep(ms);
        cluster.resume();
        postgresBusy = false;
      },
    });
    const faults: Record<string, () => Promise<void>> = { ...siteFaults, ...(cluster ? postgresFaults(cluster) : sqliteFaults(second!)) };
    const kinds = Object.keys(faults);

    // Visitors: each a fresh address, one form, sent again after a failure until it is answered.
    const thanked = new Set<number>();
    let lastThanked = Date.now();
    let visitors = 0;
    let odd = 0; // valid forms answered with neither thanks nor a failure
    let calm = false;
    async function visitor() {
      const n = ++visitors;
      const [kind, js, valid] = [random.pick(["calculator", "contact"] as const), random.next() < 0.5, random.next() < 0.8];
      const fields = form(n, kind, valid);
      const address = `127.${60 + index}.${(n >> 8) & 255}.${n & 255}`;
      for (let tries = 0; !over && !broken(); tries++) {
        const live = reachable();
        const outcome = live.length ? await post(random.pick(live), fields, js, address) : "retry";
        if (outcome === "thanked") return void (thanked.add(n), (lastThanked = Date.now()));
        if (outcome === "answered" && valid) odd++;
        if (outcome === "answered" || !valid) return;
        await sleep(random.between(300, 1_500) * (calm ? 1 : 1 + Math.min(tries, 2)));
      }
    }

    const running: Promise<void>[] = [];
    // Last, after the sites it may have restarted meanwhile are killed (a timeout abandons the body).
    undo(async () => {
      over = true;
      await Promise.allSettled(running);
    });
    await Promise.all(sites.map(start));
    lastThanked = Date.now(); // from when the sites listen: a loaded machine starts them slowly
    const stalled = () => Date.now() - lastThanked > STALL_MS;
    /** Nobody thanked for two minutes, or a site gone: waiting on would only reach the test's timeout. */
    const broken = () => stalled() || exitedAlone.length > 0;
    const faulty = () => (thanked.size < CHAOS_LEADS || kinds.some((kind) => !acted.get(kind))) && !broken();
    // Three visitors at a time at a steady pace (about 150 a minute, 120 of them thanked, on an
    // idle machine): six as fast as the sites answered sent 450-800 a minute, as many more as the
    // machine was faster, for no more faults met (CPU-seconds 28 to 16: perf/test-suite.md).
    const traffic = Array.from({ length: 3 }, async () => {
      while (faulty()) {
        await visitor();
        await sleep(random.between(400, 1_000));
      }
    });
    while (faulty()) {
      // Of the kinds met least so far, so every kind is met before any is met again.
      const least = Math.min(...kinds.map((kind) => acted.get(kind) ?? 0));
      const fault = faults[random.pick(kinds.filter((kind) => (acted.get(kind) ?? 0) === least))]!();
      // Awaited once the faults are over, where a fault that failed (a PostgreSQL that would not
      // start again) fails the run; unhandled until then, it would end the worker mid-run instead.
      fault.catch(() => undefined);
      running.push(fault);
      const after = thanked.size;
      await sleep(random.between(1_500, 4_000));
      // Where leads go through slowly, the next fault waits for its leads: the faults met per lead
      // stay what they are on a fast machine, and a fault that stops every site (a kill, a pause)
      // is not followed by more before anyone gets through.
      while (faulty() && thanked.size < after + LEADS_PER_FAULT) await sleep(100);
    }
    const stalledFor = stalled() ? Date.now() - lastThanked : 0;
    note(`faulty phase over: ${thanked.size} thanked, ${running.length} faults`);
    // Calm: every fault undoes itself, the service answers, the visitors still waiting get through.
    await Promise.all(running);
    calm = true;
    fake.setMode("ok");
    await Promise.all(traffic);
    note(`calm: ${thanked.size} thanked of ${visitors} visitors`);

    /**
     * The leads the service took for each token, by the reference each message ends with (the key
     * a receiver drops a repeat by, decision 0046; the webhook also sends it as Idempotency-Key):
     * a lead sent again (a process killed after the service took it, or paused past its claim) is
     * one reference twice; one form taken as two leads is two references, which nobody can undo.
     */
    const counts = () => {
      const seen = new Map<number, string[]>();
      for (const body of fake.accepted()) {
        const key = /Reference: (\d{8}-[0-9A-Z]{8})/.exec(JSON.stringify(body))?.[1] ?? "none";
        for (const n of new Set([...JSON.stringify(body).matchAll(/chaos(\d+)z/g)].map((m) => Number(m[1])))) seen.set(n, [...(seen.get(n) ?? []), key]);
      }
      return seen;
    };
    // Leads still pending drain, then a claim's length and a second more in which a second send
    // would show: the longest way one starts after the first delivery is a killed or paused
    // process's claim running out.
    await expect
      .poll(() => [...thanked].filter((n) => !counts().has(n)).length, {
        timeout: 180_000,
        intervals: [1_000],
        message: `CHAOS_SEED=${SEED}: leads still pending`,
      })
      .toBe(0)
      .catch(() => undefined); // the count below says which
    await sleep(TIMEOUT_MS + 6_000);
    const seen = counts();
    const sends = (n: number) => new Set(seen.get(n)).size;
    const resent = [...seen.values()].filter((keys) => keys.length > new Set(keys).size).length;
    const figures = {
      thanked: thanked.size,
      once: [...thanked].filter((n) => sends(n) === 1).length,
      twice: [...seen.keys()].filter((n) => sends(n) > 1).length,
      never: [...thanked].filter((n) => !seen.has(n)).length,
      unthanked: [...seen.keys()].filter((n) => !thanked.has(n)).length,
    };
    const line = `thanked ${figures.thanked}, delivered once ${figures.once}, twice ${figures.twice}, never ${figures.never}, delivered but never thanked ${figures.unthanked}`;
    console.log(
      `chaos run (${variant}, CHAOS_SEED=${SEED}): ${line} (${resent} sent again with their reference, for the receiver to drop; ` +
        `${visitors} visitors, ${odd} valid forms answered otherwise; ${running.length} faults: ${[...acted].map(([kind, n]) => `${kind} ${n}`).join(", ")})`,
    );
    if (figures.once !== figures.thanked || figures.twice + figures.never + figures.unthanked > 0 || stalledFor || exitedAlone.length) {
      const tokens = [...seen.keys()].filter((n) => sends(n) !== 1 || !thanked.has(n)).concat([...thanked].filter((n) => !seen.has(n)));
      // Each odd token with the references its deliveries carried, to find in the sites' logs.
      const which = tokens.map((n) => `chaos${n}z${thanked.has(n) ? "" : " (never thanked)"}: ${seen.get(n)?.join(", ") ?? "never delivered"}`);
      console.log(`chaos run (${variant}, CHAOS_SEED=${SEED}):\n${which.join("\n")}\n${timeline.join("\n")}`);
    }
    expect(figures, `CHAOS_SEED=${SEED} replays it: ${line}`).toEqual({ thanked: figures.thanked, once: figures.thanked, twice: 0, never: 0, unthanked: 0 });
    expect(stalledFor, `CHAOS_SEED=${SEED}: ms without a thanked lead, after ${thanked.size} of ${CHAOS_LEADS}`).toBe(0);
    expect(exitedAlone, `CHAOS_SEED=${SEED}: sites that ended with no fault on them`).toEqual([]);
  });
}
