/**
 * The same pages without scripts, for Lighthouse to measure beside the site: a proxy
 * on loopback that passes every request to the site and answers a page's HTML with its scripts
 * taken out (every <script> that runs, and the modulepreloads; JSON-LD stays, it never runs),
 * brotli-11 as the site sends it. Stylesheet, images and fonts come from the site unchanged.
 */
import { createServer, request } from "node:http";
import { brotliCompressSync, constants } from "node:zlib";

/** The page without what would run: executable <script> elements and module preloads. */
function withoutScripts(html) {
  return html.replace(/<script\b(?![^>]*type="application\/ld\+json")[^>]*>[\s\S]*?<\/script>/g, "").replace(/<link rel="modulepreload"[^>]*>/g, "");
}

/**
 * @param {string} origin  the site, e.g. http://127.0.0.1:3400
 * @param {number} port    where the proxy listens on 127.0.0.1
 * @returns {Promise<{ url: string, stop: () => Promise<void> }>}
 */
export async function startNoScripts(origin, port) {
  const target = new URL(origin);
  const server = createServer((req, res) => {
    const headers = { ...req.headers, host: target.host };
    delete headers["if-none-match"];
    // HTML is rewritten, so it is fetched as identity; everything else passes as it is.
    const html = (req.headers.accept ?? "").includes("text/html");
    if (html) delete headers["accept-encoding"];
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (up) => {
      const type = up.headers["content-type"] ?? "";
      if (!type.startsWith("text/html")) {
        res.writeHead(up.statusCode ?? 502, up.headers);
        return void up.pipe(res);
      }
      const chunks = [];
      up.on("data", (c) => chunks.push(c));
      up.on("end", () => {
        const page = Buffer.from(withoutScripts(Buffer.concat(chunks).toString("utf8")));
        const { "content-length": _length, etag: _etag, ...rest } = up.headers;
        const br = /\bbr\b/.test(req.headers["accept-encoding"] ?? "");
        const body = br ? brotliCompressSync(page, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }) : page;
        res.writeHead(up.statusCode ?? 502, { ...rest, ...(br ? { "content-encoding": "br" } : {}), "content-length": body.length });
        res.end(body);
      });
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}
