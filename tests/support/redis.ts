/**
 * A real redis-server (Debian's) for a test: on a free loopback port, no persistence, stopped by
 * the test. `stop()` kills it (SIGKILL) so a test can also play "Redis went away".
 */
import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { owned } from "../../scripts/test-run.mjs";
import { freePort } from "./ports";

export interface RedisServer {
  port: number;
  url: string;
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop()). */
  restart(): Promise<void>;
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
