/**
 * `npm run leads -- <command>`: what an operator needs to see and move the lead store, with the
 * server running or not (LEADS_FILE and REDIS_URL as the server has them).
 *
 *   list            pending and parked leads: id, kind, status, age, why parked (no personal data)
 *   export          every pending and parked lead in full, one JSON object per line
 *   retry [id …]    re-queue parked leads (all, or those named), e.g. after fixing a wrong key
 */
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { version } from "../../package.json";
import { parseConfig } from "../config";
import { readJournal, requestRequeue } from "./journal";
import { QUEUE, type QueuedLead } from "./redis-queue";

interface Row {
  lead: QueuedLead;
  status: "pending" | "parked";
  reason?: string;
}

const USAGE = "usage: npm run leads -- list | export | retry [id ...]";

function age(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  return minutes < 60 ? `${minutes}m` : minutes < 48 * 60 ? `${Math.floor(minutes / 60)}h` : `${Math.floor(minutes / 1440)}d`;
}

export async function runCli(argv: string[], env: Record<string, string | undefined>, out: (line: string) => void): Promise<number> {
  const [command, ...ids] = argv;
  if (!command || command === "--help" || !["list", "export", "retry"].includes(command)) {
    out(USAGE);
    return command === "--help" ? 0 : 2;
  }
  const { leadsFile, redisUrl } = parseConfig(env, version);
  const local = await readJournal(leadsFile);
  const rows: Row[] = [
    ...[...local.pending.values()].map((lead) => ({ lead, status: "pending" as const })),
    ...[...local.parked.values()].map((lead) => ({ lead, status: "parked" as const, reason: lead.reason })),
  ];
  const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 3_000 }) : undefined;
  const queue = redis && new Queue<QueuedLead>(QUEUE.name, { connection: redis, prefix: QUEUE.prefix });
  try {
    if (queue) {
      for (const job of await queue.getJobs(["waiting", "delayed", "active", "prioritized"])) rows.push({ lead: job.data, status: "pending" });
      for (const job of await queue.getJobs(["failed"])) rows.push({ lead: job.data, status: "parked", reason: job.failedReason });
    }
    if (command === "list") {
      out(["id", "kind", "status", "age", "reason"].join("\t"));
      for (const { lead, status, reason } of rows) out([lead.id, lead.kind, status, age(Date.now() - lead.acceptedAt), reason ?? ""].join("\t"));
    } else if (command === "export") {
      for (const { lead, status, reason } of rows) out(JSON.stringify({ ...lead, status, reason }));
    } else {
      const wanted = (id: string) => ids.length === 0 || ids.includes(id);
      const parked = rows.filter((row) => row.status === "parked" && wanted(row.lead.id));
      if (queue) {
        for (const job of await queue.getJobs(["failed"])) {
          if (!wanted(job.data.id)) continue;
          await job.updateData({ ...job.data, since: Date.now() });
          await job.retry("failed");
        }
      }
      if (local.parked.size > 0) await requestRequeue(leadsFile, ids.length ? ids : ["*"]);
      out(`re-queued ${parked.length} lead(s); the server takes them within a few seconds (or when it next starts)`);
    }
    return 0;
  } finally {
    await queue?.close();
    redis?.disconnect();
  }
}

if (process.argv[1]?.endsWith("leads.js")) {
  runCli(process.argv.slice(2), process.env, (line) => console.log(line)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`leads: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
