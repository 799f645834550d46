/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/.*", "**/*.test.{ts,tsx}"],
  serverModuleFormat: "esm",
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_lazyRouteDiscovery: false,
    // Off: turbo-stream 2.4.1, which only single fetch uses, has an advisory no Remix 2 release
    // will fix (docs/decisions/0021). The classic compiler builds with it on, and the server then
    // answers `.data` requests: tests/security.spec.ts fails then.
    v3_singleFetch: false,
  },
};
