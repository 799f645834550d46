// The throughput floor: the same bytes from memory through bare node:http, nothing else.
// Usage: node floor-server.mjs <port> <body-file> [content-encoding]; prints "ready" when listening.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const [port, file, encoding] = process.argv.slice(2);
const body = readFileSync(file);
const headers = { "Content-Type": "text/html; charset=utf-8", "Content-Length": String(body.length) };
if (encoding) headers["Content-Encoding"] = encoding;

createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(port), "127.0.0.1", () => console.log("ready"));
