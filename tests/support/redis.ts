/**
 * A real redis-server (Debian's) for a test: on a free loopback port, no persistence, stopped by
 * the test. `stop()` kills it (SIGKILL) so a test can also play "Redis went away".
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, connect } from "node:net";
import { owned } from "../../scripts/test-run.mjs";

export interface RedisServer {
  port: number;
  url: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop()). */
  restart(): Promise<void>;
}

/**
 * A free loopback port below the kernel's ephemeral range (32768 and up on Linux), so a port a
 * test frees and takes again (a Redis restarted on it) is never handed meanwhile to an outgoing
 * connection as its own, nor to a client reconnecting to it (TCP's self-connect). Above the E2E
 * port bases (3100-19999). Never the same one twice in a process, so a port whose server is down
 * for a moment is not given to another.
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

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => (socket.destroy(), resolve(String(data).startsWith("+PONG"))));
    socket.once("error", () => resolve(false));
  });

/** `args` are added to redis-server's (e.g. `["--maxmemory-policy", "allkeys-lru"]`). */
export async function startRedis(port?: number, args: string[] = []): Promise<RedisServer> {
  const at = port ?? (await freePort());
  let child: ChildProcess | undefined;
  async function start() {
    // Killed with the process that starts it (scripts/test-run.mjs), should a test not get to stop it.
    const own = spawn(
      ...owned("redis-server", ["--port", String(at), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning", ...args]),
      {
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
    child = own;
    let said = "";
    own.stdout.on("data", (data) => (said = (said + String(data)).slice(-1_000)));
    // Ours answering, not only something on the port (another process's Redis, had it taken it).
    const alive = () => own.exitCode === null && own.signalCode === null;
    let up = false;
    for (let i = 0; i < 100 && alive() && !(up = await answers(at)); i++) await new Promise((r) => setTimeout(r, 50));
    if (!up || !alive()) {
      own.kill("SIGKILL");
      throw new Error(`redis-server did not start on port ${at}: ${said.trim()}`);
    }
  }
  await start();
  return {
    port: at,
    url: `redis://127.0.0.1:${at}`,
    restart: start,
    stop: () =>
      new Promise<void>((resolve) => {
        if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}
