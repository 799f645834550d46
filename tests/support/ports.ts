import { createServer } from "node:net";

/**
 * A free loopback port between the E2E port bases and the kernel's ephemeral range (32768 up), so
 * a port freed and taken again (a PostgreSQL restarted) is never an outgoing connection's
 * meanwhile; never the same twice in a process.
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
