import type { AppLoadContext } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { loader } from "./healthz";

const ask = async (serving: boolean) => {
  const response = loader({ context: { serving: () => serving } as AppLoadContext, request: new Request("http://x/healthz"), params: {} });
  return [response.status, response.headers.get("cache-control"), await response.json()];
};

describe("/healthz", () => {
  it("says only whether the server can serve: 200 ok, or 503 once it is stopping", async () => {
    expect(await ask(true)).toEqual([200, "no-store", { status: "ok" }]);
    expect(await ask(false)).toEqual([503, "no-store", { status: "unavailable" }]);
  });
});
