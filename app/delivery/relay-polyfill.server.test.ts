// Regression: under remix-serve the global fetch is Remix's polyfill, whose abort of a request to a
// server that never answers used to reject a promise nobody held and end the process. The relay's
// own transport must time out cleanly with that polyfill installed, as it is in production.
import { installGlobals } from "@remix-run/node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type FakeFormService, startFakeFormService } from "../../tests/support/fake-form-service";
import { calculatorMessage } from "./message.server";
import { createRelay } from "./relay.server";

let service: FakeFormService;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  installGlobals({ nativeFetch: false });
  process.on("unhandledRejection", onUnhandled);
  service = await startFakeFormService();
});
afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  await service.close();
});

it("times out against a hanging service with Remix's fetch polyfill installed, leaving no unhandled rejection", async () => {
  service.setMode("hang");
  const relay = createRelay({ provider: "web3forms", endpoint: service.submitUrl, accessKey: "k", inbox: "a@b.example", outboxFile: "unused", timeoutMs: 300 }, { log: () => {} });
  const msg = calculatorMessage({ service: "ai", timeframe: "standard", complexity: "medium", description: "d", companyName: "Acme", email: "a@acme.example", phone: "0115551234" });
  await expect(relay.deliver(msg)).resolves.toEqual({ ok: false, reason: "timeout" });
  await new Promise((r) => setTimeout(r, 200));
  expect(unhandled).toEqual([]);
});
