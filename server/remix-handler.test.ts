import { get } from "node:http";
import type { AddressInfo } from "node:net";
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type ServerBuild } from "@remix-run/node";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formPosts } from "./form-posts";
import { createLogger } from "./log";
import { createRateLimits } from "./rate-limits";
import { remixHandler } from "./remix-handler";

/** A new action written the Remix way, in a one-route Remix app; it answers the fields it read. */
async function action({ request }: ActionFunctionArgs) {
  return json(Object.fromEntries(await request.formData()));
}
/** A loader that answers what Remix was given, with two cookies and a status of its own. */
function loader({ request }: LoaderFunctionArgs) {
  const headers = new Headers({ "Set-Cookie": "a=1" });
  headers.append("Set-Cookie", "b=2");
  return json({ url: request.url, method: request.method, test: request.headers.get("x-test") }, { status: 203, headers });
}
const build = {
  mode: "production",
  future: {},
  isSpaMode: false,
  publicPath: "/build/",
  assetsBuildDirectory: "public/build",
  // A document: the status Remix rendered it with (a post without ?_data is answered with one).
  entry: { module: { default: (_request: Request, status: number) => new Response(`document ${status}`, { status }) } },
  routes: { root: { id: "root", path: "*", module: { default: () => null, action, loader } } },
  assets: {
    url: "/build/manifest.js",
    version: "1",
    entry: { module: "/build/entry.js", imports: [] },
    routes: { root: { id: "root", path: "*", module: "/build/root.js", hasAction: true, hasLoader: true } },
  },
} as unknown as ServerBuild;

/** The server's order: the form-post rules, then Remix (here on its own too, as if mounted wrongly). */
let url = "";
let close = () => {};
const errors: Error[] = [];
beforeAll(async () => {
  const log = createLogger();
  const drafts = { save: async () => "", load: async () => undefined, delete: async () => undefined };
  const remix = remixHandler(build, "production", () => ({
    ...{ clientAddress: undefined, submitLead: async () => ({ ok: true }), countVisit: async () => undefined, sources: { names: new Set(), sites: [] } },
    ...{ serving: () => true, drafts, privacy: { formService: null, retentionDays: 30 }, bookingUrl: undefined, zar: undefined, log },
  }));
  const app = express();
  app.post("/checked", formPosts({ limits: createRateLimits(undefined, log), log }), remix);
  app.post("/unchecked", remix);
  app.get("/read", remix);
  app.use(((error, _req, res, _next) => {
    errors.push(error as Error);
    res.status(500).send("Something went wrong");
  }) as express.ErrorRequestHandler);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
afterAll(() => close());

const post = (path: string, body: string) =>
  fetch(`${url}${path}?_data=root`, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    signal: AbortSignal.timeout(5_000),
  });

// A post whose Origin names another host than Host, passed by the cross-site check, reaches its
// action (Remix's own check would answer it with a 500): tests/ops/proxy.spec.ts, through
// nginx's plain proxy_pass to a site whose SITE_ORIGIN names the visitor's address.
describe("remixHandler", () => {
  it("hands Remix a GET with its URL (the Host's name and port) and headers, and sends back its status, headers and body", async () => {
    // node:http, since fetch may not set Host.
    const answer = await new Promise<{ status: number; cookies: string[] | undefined; body: string }>((resolve, reject) => {
      get(`${url}/read?x=1&_data=root`, { headers: { Host: "shop.example:8080", "X-Test": "yes" } }, (res) => {
        let body = "";
        res.on("data", (chunk) => (body += chunk)).on("end", () => resolve({ status: res.statusCode!, cookies: res.headers["set-cookie"], body }));
      }).on("error", reject);
    });
    expect(answer.status).toBe(203);
    expect(answer.cookies).toEqual(["a=1", "b=2"]);
    expect(JSON.parse(answer.body)).toEqual({ url: "http://shop.example:8080/read?x=1", method: "GET", test: "yes" });
  });

  it("gives an action reading request.formData() the form the rules checked, cleaned", async () => {
    const response = await post("/checked", "name=Ann+Lee&message=Hi\u200b+there&service=seo");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: "Ann Lee", message: "Hi there", service: "seo" });
  });

  it("fails loudly, naming the cause, when a form reaches Remix without passing the rules", async () => {
    const response = await post("/unchecked", "name=Ann");
    expect(response.status).toBe(500);
    expect(errors.at(-1)?.message).toBe(
      "POST /unchecked reached Remix without passing formPosts (server/form-posts.ts), which reads and checks every form's body",
    );
  });
});
