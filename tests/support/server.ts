/**
 * Helpers for tests that start their own server (scripts/serve.mjs starts it) and talk to it
 * over plain HTTP, as a browser without JavaScript or an attacker would.
 */
import { request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";

export { REPO, serve, type Served } from "../../scripts/serve.mjs";

/** Whether a TCP connection to 127.0.0.1:port is accepted right now. */
export const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The answer's body (the page with the failure text, when a lead was not stored). */
  body: string;
  /** Date.now() when the response arrived. */
  at: number;
}

/**
 * POSTs a valid contact form to the home page's action as a browser without JavaScript would
 * (same-origin, urlencoded), redirects not followed. `message` should carry a token to find the
 * submission at the fake form service; `localAddress` (127.0.0.2, 127.0.0.3, …) makes the post
 * come from a client of its own.
 */
export function postContact(
  url: string,
  message: string,
  { localAddress, name = "Ada Lovelace" }: { localAddress?: string; name?: string } = {},
): Promise<Answer> {
  const body = new URLSearchParams({ formName: "contact", name, email: "ada@example.com", service: "seo", message }).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/?index`,
      {
        method: "POST",
        localAddress,
        headers: { Origin: url, "Content-Type": "application/x-www-form-urlencoded", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, at: Date.now() }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Sends `head` (request line and headers, CRLF-separated) over a bare socket; resolves with the status line's code. */
export function rawRequest(port: number, head: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let reply = "";
    const socket = connect(port, "127.0.0.1", () => socket.write(`${head}\r\n\r\n`));
    socket.on("data", (chunk) => {
      reply += chunk;
      const status = /^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1];
      if (!status) return;
      resolve(Number(status));
      socket.destroy();
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(0));
  });
}
