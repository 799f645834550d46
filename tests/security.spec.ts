/**
 * Tampered forms, the rate limits' answers in the page, and single fetch off (decision 0021). The
 * headers are tests/ops/server.spec.ts's; the form-post rules server/form-posts.test.ts's.
 */
import type { APIRequestContext, Page } from "@playwright/test";
import { messages } from "../app/content/messages";
import { PER_ADDRESS } from "../server/leads/schedule";
import { LIMITS } from "../server/rate-limits";
import { expect, newClient, test } from "./support/fixtures";
import { fillValues } from "./support/wizard";

const contactFields = (name: string) => ({ formName: "contact", name, email: "thabo@example.co.za", service: "seo", message: "Hello" });
/** A post to the home page's actions from a client of its own (or `client`). */
const post = (request: APIRequestContext, options: { form?: Record<string, string>; headers?: Record<string, string> }, client = newClient()) =>
  request.fetch("/?index", { method: "POST", ...options, headers: { "X-Forwarded-For": client, ...options.headers }, maxRedirects: 0 });

test("tampered forms are answered with messages, and markup typed in a field is never echoed raw", { tag: "@once" }, async ({ request, formService }) => {
  const client = newClient();
  // A calculator step, and a contact form with mistakes, are answered with a redirect to a page of their own (decision 0016).
  const step = async (form: Record<string, string>) => {
    const posted = await post(request, { form }, client);
    expect(posted.status()).toBe(303);
    return (await request.get(posted.headers()["location"]!, { headers: { "X-Forwarded-For": client } })).text();
  };
  expect(await step({ formName: "calculator", "state.step": "1", service: "rocket-science" })).toContain("Please choose a service");
  const tampered = { formName: "calculator", "state.step": "5", "state.service": "hacker", intent: "send" };
  expect(await step({ ...tampered, companyName: "A", email: "a@b.co", phone: "0115550100" })).toMatch(/Step (<!-- -->)?1(<!-- -->)? of/);
  const injected = `<script>alert("${formService.token}")</script>`;
  const html = await step({ ...contactFields(injected), email: "bad" });
  expect(html).not.toContain(injected);
  expect(html).toContain("&lt;script&gt;");
  expect(await formService.settled()).toEqual([]);
});

/** The contact form sent from `client`'s browser, and the answer to its post. */
async function sendContact(page: Page, client: string, name: string) {
  await page.setExtraHTTPHeaders({ "X-Forwarded-For": client });
  await page.goto("/");
  const form = page.locator("#contact");
  await fillValues(form, { Name: name, Email: "busy@example.co.za", Service: "ai", Message: "One more" });
  const answer = page.waitForResponse((r) => r.request().method() === "POST");
  await form.getByRole("button", { name: "Send Message" }).click();
  return { form, answer: await answer };
}

test("past its limits a visitor is told so (429, Retry-After): 20 leads held, then 30 posts a minute", async ({ page, request, formService }) => {
  const client = newClient();
  // Different messages (one form posted twice is one lead: decision 0012): five go at once, twenty held, all thanked.
  const leads = PER_ADDRESS.letThrough + PER_ADDRESS.held;
  for (let i = 0; i < leads; i++) expect((await post(request, { form: contactFields(`Busy ${formService.token} ${i}`) }, client)).status()).toBe(303);
  const held = await sendContact(page, client, `Busy ${formService.token}`);
  // Retry-After: the time the address's share lets one more lead through (docs/operations.md: 120 s).
  expect([held.answer.status(), held.answer.headers()["retry-after"]]).toEqual([429, String(PER_ADDRESS.windowMs / PER_ADDRESS.letThrough / 1000)]);
  await expect(held.form.getByRole("alert")).toHaveText(messages.rateLimited);
  await expect(held.form.getByLabel("Message")).toHaveValue("One more");
  await expect.poll(async () => (await formService.received()).length).toBe(5);
  // That send was this minute's post number leads + 1: calculator steps (303s) up to the post limit, whose 429 comes before a form is read.
  for (let i = leads + 1; i < LIMITS.posts.points; i++)
    expect((await post(request, { form: { formName: "calculator", "state.step": "1", service: "seo" } }, client)).status()).toBe(303);
  const { answer } = await sendContact(page, client, "Thabo");
  const wait = Number(answer.headers()["retry-after"]);
  expect([answer.status(), wait > 0 && wait <= LIMITS.posts.duration]).toEqual([429, true]);
  await expect(page.getByText(messages.rateLimited)).toBeVisible();
});

// Remix v2 gets no fix for turbo-stream 2.4.1 (CVE-2026-34077), reached only through single fetch: the doors it would open.
test("single fetch is off: .data URLs and /__manifest are the 404 page, no turbo-stream, ?_data= is JSON", { tag: "@once" }, async ({ request, baseURL }) => {
  const reads = ["/_root.data", "/index.data", "/_index.data", "/services.data", "/about.data", "/work.data?category=ai", "/privacy.data", "/healthz.data"];
  const answers = await Promise.all(
    [...reads, "/__manifest?p=%2F&version=1"].map(async (path) => [`GET ${path}` as string, await request.get(path, { maxRedirects: 0 })] as const),
  );
  for (const path of ["/index.data?index", "/_root.data"]) {
    const headers = { Origin: baseURL!, "X-Forwarded-For": newClient() };
    answers.push([`POST ${path}`, await request.post(path, { form: contactFields("Ann"), headers, maxRedirects: 0 })]);
  }
  for (const [what, response] of answers) {
    expect([response.status(), response.headers()["x-remix-response"]], what).toEqual([404, undefined]);
    expect(response.headers()["content-type"], what).toMatch(/^text\/html/);
    expect(await response.text(), what).toContain("<!DOCTYPE html>");
  }
  for (const path of ["/", "/work?category=ai", "/no-such-page"]) {
    const html = await (await request.get(path)).text();
    expect(html, path).toContain('"v3_singleFetch":false');
    expect(html, path).not.toMatch(/streamController|__remixContext\.stream\b|text\/x-script/);
  }
  const data = await request.get("/?_data=routes%2F_index");
  expect([data.status(), data.headers()["content-type"], data.headers()["x-remix-response"]]).toEqual([200, "application/json; charset=utf-8", "yes"]);
  expect(await data.json()).toBeInstanceOf(Object);
});
