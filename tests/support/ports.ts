import { createServer } from "node:net";

/**
 * A free loopback port below the kernel's ephemeral range (32768 and up on Linux), so a port a
 * test frees and takes again (a PostgreSQL restarted on it) is never handed meanwhile to
 * an outgoing connection as its own, nor to a client reconnecting to it (TCP's self-connect).
 * Above the E2E port bases (3100-19999). Never the same one twice in a process, so a port whose
 * server is down for a moment is not given to another.
 */
const given = new Set<number>();
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (given.has(port)) continue;
    given.add(port);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer()
        .once("error", () => resolve(false))
        .listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
