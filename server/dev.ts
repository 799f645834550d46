/** `npm run dev`: each build/version.txt Remix's dev server writes loads the new build and reloads the browser. */
import { watch } from "node:fs";
import path from "node:path";
import { broadcastDevReady, type ServerBuild } from "@remix-run/node";
import type { Logger } from "./log";

export async function watchBuild(buildFile: string, load: () => Promise<ServerBuild>, swap: (build: ServerBuild) => void, log: Logger) {
  const ready = async () => {
    const build = await load();
    swap(build);
    await broadcastDevReady(build).catch((error: unknown) => log.warn({ err: error }, "dev_ready_failed"));
  };
  await ready();
  let timer: NodeJS.Timeout | undefined;
  watch(path.dirname(buildFile), (_event, file) => {
    if (file !== "version.txt") return;
    clearTimeout(timer);
    timer = setTimeout(() => void ready().catch((error: unknown) => log.error({ err: error }, "dev_reload_failed")), 50);
  });
}
