/**
 * The relay's transport: one HTTP(S) request with node:http, not the global `fetch`. Under
 * remix-serve the global `fetch` is Remix's polyfill, and aborting one of its requests whose
 * server never answers rejects a promise nobody holds ("Cannot cancel a stream that already has a
 * reader"), which ends the Node process. node:http aborts cleanly through `signal`.
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";

/** What the relay needs of a request: the shape `fetch` also has, so tests can inject either. */
export interface PostInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}
export interface PostResponse {
  status: number;
  text(): Promise<string>;
}
export type HttpPost = (url: string, init: PostInit) => Promise<PostResponse>;

/** Responses larger than this are cut off: a form service answers with a few hundred bytes. */
const MAX_RESPONSE_BYTES = 256 * 1024;

export const httpPost: HttpPost = (url, init) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(target, { method: init.method ?? "POST", headers: init.headers, signal: init.signal }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
      });
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, text: async () => text });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
