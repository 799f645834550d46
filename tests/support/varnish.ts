/** Varnish in front of a test site, for tests/caching.spec.ts: started as the other proxies are. */
export { startVarnish, type Proxy as Varnish } from "./proxies";
