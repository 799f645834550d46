import { EventEmitter } from "node:events";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, requestLogger } from "./log";

function capture() {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) });
  return { log: createLogger(sink), lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

// One JSON object per line with level, time and event, nothing of pino's own: every line a real
// server writes, tests/ops/server.spec.ts.
describe("createLogger", () => {
  it("drops any field named like a secret or something a visitor typed, at any depth", () => {
    const { log, lines } = capture();
    const payload = { subject: "S", message: "M", nested: [{ email: "e@x", phone: "1" }] };
    log.warn({ provider: "web3forms", access_key: "K", payload, Authorization: "Bearer K" }, "oops");
    const [line] = lines();
    expect(line).toMatchObject({ provider: "web3forms", payload: { nested: [{}] } });
    expect(JSON.stringify(line)).not.toMatch(/"K"|"S"|"M"|e@x|Bearer/);
  });

  it("logs the funnel's link for marketing without its token: a log reaches more people than the link should", () => {
    const { log, lines } = capture();
    log.info({ method: "GET", path: "/funnel/1796779993.hKC2abc", status: 200 }, "request");
    log.warn({ status: 415, path: "/FUNNEL/1796779993.x" }, "post_refused");
    log.info({ path: "/funnel" }, "request");
    expect(lines().map((line) => line.path)).toEqual(["/funnel/…", "/FUNNEL/…", "/funnel"]);
  });

  it("reduces an error to its type and code (SQLite's with its fixed word for it): a message can quote input", () => {
    const { log, lines } = capture();
    const errors = [
      Object.assign(new TypeError("bad value 'ada@example.com'"), { code: "ERR_X" }),
      // PostgreSQL's message quotes a row's values; its SQLSTATE is said instead.
      Object.assign(new Error('duplicate key value violates unique constraint "leads_pkey": Key (id)=(ada@example.com)'), { code: "23505" }),
      Object.assign(new Error("database or disk is full"), { code: "ERR_SQLITE_ERROR", errcode: 13, errstr: "database or disk is full" }),
    ];
    for (const error of errors) log.error({ err: error }, "error");
    expect(lines().map((line) => line.err)).toEqual([
      { type: "TypeError", code: "ERR_X" },
      { type: "Error", code: "23505" },
      { type: "Error", code: 13, cause: "database or disk is full" },
    ]);
    expect(JSON.stringify(lines())).not.toMatch(/ada@example\.com|stack/);
  });
});

describe("requestLogger", () => {
  it("logs the path a request arrived with, though a mount cut req.url before the answer ended", () => {
    const { log, lines } = capture();
    const req = Object.assign(new EventEmitter(), { method: "GET", url: "/build/entry.client-AB12.js?v=1" });
    const res = Object.assign(new EventEmitter(), { statusCode: 200, writableFinished: true });
    requestLogger(log)(req as never, res as never);
    req.url = "/entry.client-AB12.js"; // what Express's app.use("/build", …) leaves
    res.emit("close");
    expect(lines()).toEqual([expect.objectContaining({ event: "request", method: "GET", path: "/build/entry.client-AB12.js", status: 200 })]);
  });
});
