/**
 * The calculator's send, with JavaScript on and off: one request end to end with every field as
 * the form service receives it and no second send on a reload, the wizard starting over after a
 * send, the optional description, Back keeping everything, a lead that cannot be stored (the
 * failure text, nothing lost), the outbox when no key is set, and the access key in nothing the
 * site serves. With JavaScript, steps 1-4 in the browser and focus on each step. Step 5 itself,
 * the step pages, the history and the fields' messages (error-summary.spec.ts) have specs of their own.
 */
import { readFile } from "node:fs/promises";
import type { Page } from "@playwright/test";
import { calculatorText } from "../app/content/calculator";
import { messages } from "../app/content/messages";
import { site } from "../app/content/site";
import { expect, test } from "./support/fixtures";
import { sites, TEST_ACCESS_KEY } from "./support/sites";
import { atStep5, calculator, fillDetails, postsOf, priceOf, progress } from "./support/wizard";

const order = {
  service: "Software Development",
  timeframe: "Urgent (1-2 weeks)",
  complexity: "Complex",
  description: "A dispatch app for 40 drivers,\nwith proof of delivery photos.",
  name: "Thandi Nkosi",
  company: "Gauteng Freight (Pty) Ltd",
  email: "ops@gautengfreight.co.za",
  phone: "+27 11 555 0101",
};
// One combination end to end; every price in the table is app/calculator/pricing.test.ts's.
const price = priceOf(order);

/** Step 5 with the order's choices and its details typed in, the company carrying `token` (`site`, `walk`: see atStep5). */
async function upToDetails(page: Page, token = "", { site = "", walk = false } = {}) {
  await atStep5(page, order, { site, walk });
  await fillDetails(page, { ...order, company: `${order.company} ${token}`.trim() });
  return calculator(page);
}
const sent = async (page: Page) => {
  await calculator(page).getByRole("button", { name: "Send My Request" }).click();
  await expect(calculator(page).getByRole("status")).toHaveText(messages.calculatorSent);
};

test(`the wizard sends ${order.service} / ${order.timeframe} / ${order.complexity} at ${price} with every field; a reload sends nothing again`, async ({
  page,
  formService,
}) => {
  const calc = await upToDetails(page, formService.token, { walk: true });
  await expect(calc.locator(".estimate")).toContainText(price);
  await sent(page);
  await expect(progress(page)).toHaveText("Step 1 of 5");
  const [payload] = (await formService.settled()) as Record<string, string>[];
  const company = `${order.company} ${formService.token}`;
  // The sender is the company name entered (the specification's from_name); the person's name is in the message.
  expect(payload).toMatchObject({ access_key: TEST_ACCESS_KEY, to: site.email, from_name: company, subject: `New cost estimate request from ${company}` });
  for (const line of [
    `Service: ${order.service}`,
    `Timeframe: ${order.timeframe}`,
    `Complexity: ${order.complexity}`,
    "Description: A dispatch app for 40 drivers,",
    "with proof of delivery photos.",
    `Estimated cost: ${price}`,
    `Name: ${order.name}`,
    `Company: ${company}`,
    `Email: ${order.email}`,
    `Phone: ${order.phone}`,
  ])
    expect(payload!.message).toContain(line);
  await page.reload();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  expect(await formService.settled()).toHaveLength(1);
});

test("after a send the wizard starts over, complexity back to Medium; step 4's description is optional, with a hint, and the request goes without one", async ({
  page,
  formService,
}) => {
  const calc = await upToDetails(page);
  await sent(page);
  await expect(page).toHaveURL(/\?sent=calculator&receipt=[\w-]{22}#wizard$/);
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await calc.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
  await expect(calc.getByRole("button", { name: "Medium" })).toHaveAttribute("aria-current", "true");
  await expect(calc.getByRole("button", { name: "Complex" })).not.toHaveAttribute("aria-current", "true");
  await calc.getByRole("button", { name: "Medium" }).click();
  const description = calc.getByLabel("Project description (optional)");
  await expect(description).toHaveValue("");
  await expect(description).not.toHaveAttribute("required");
  await expect(description).toHaveAccessibleDescription(`${calculatorText.descriptionHint} ${calculatorText.descriptionBound}`);
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(calc.locator(".summary-value")).toHaveText(["AI Solutions", "Standard (3-4 weeks)", "Medium", calculatorText.noDescription]);
  for (const label of ["Your name (optional)", "Company name", "Email", "Phone"]) await expect(calc.getByLabel(label)).toHaveValue("");
  await expect(calc.locator(".estimate")).toContainText(priceOf({ service: "AI Solutions", timeframe: "Standard (3-4 weeks)", complexity: "Medium" }));
  await fillDetails(page, { company: `Quiet Co ${formService.token}`, email: "ops@quiet.example", phone: "011 555 0199" });
  await sent(page);
  const [payload] = (await formService.settled()) as Record<string, string>[];
  expect(payload!.message).toContain(`Complexity: Medium\nDescription: ${calculatorText.noDescription}\nEstimated cost: `);
});

test("Back goes one step at a time and keeps what was chosen and typed", async ({ page }) => {
  const calc = await upToDetails(page);
  const back = () => calc.getByRole("button", { name: "Back" }).click();
  await back();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.getByLabel("Project description")).toHaveValue(order.description);
  for (const [step, chosen] of [
    [3, order.complexity],
    [2, order.timeframe],
    [1, order.service],
  ] as const) {
    await back();
    await expect(progress(page)).toHaveText(`Step ${step} of 5`);
    await expect(calc.getByRole("button", { name: chosen })).toHaveAttribute("aria-current", "true");
  }
  await expect(calc.getByRole("button", { name: "Back" })).toHaveCount(0);
  for (const choice of [order.service, order.timeframe, order.complexity, "Continue"]) await calc.getByRole("button", { name: choice }).click();
  await expect(calc.getByLabel("Your name (optional)")).toHaveValue(order.name);
  await expect(calc.getByLabel("Company name")).toHaveValue(order.company);
  await expect(calc.getByLabel("Phone")).toHaveValue(order.phone);
});

// What a failing, hanging or lying form service does to a lead is the queue's and the transport's
// (server/leads/*.test.ts, tests/ops/lead-delivery.spec.ts): the visitor's answer never waits on it.
test("a lead that cannot be stored shows the failure text and keeps everything on step 5; with JavaScript its address too, for a reload", async ({
  page,
  javaScriptEnabled,
}) => {
  const token = `Unstored ${test.info().project.name}`;
  const calc = await upToDetails(page, token, { site: sites.unwritable.url });
  const kept = async () => {
    await expect(progress(page)).toHaveText("Step 5 of 5");
    for (const [label, value] of Object.entries({
      "Your name (optional)": order.name,
      "Company name": `${order.company} ${token}`,
      Email: order.email,
      Phone: order.phone,
    }))
      await expect(calc.getByLabel(label)).toHaveValue(value);
    await expect(calc.locator(".estimate")).toContainText(price);
  };
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("alert")).toHaveText(messages.calculatorFailed);
  await kept();
  if (javaScriptEnabled) {
    await expect(page).toHaveURL(/[?&]step=5#wizard$/);
    await page.reload();
    await kept();
  }
  await calc.getByRole("button", { name: "Back" }).click();
  await expect(calc.getByLabel("Project description")).toHaveValue(order.description);
});

test("with JavaScript, steps 1-4 advance without a request, and focus moves to each new step's heading", { tag: "@needs-js" }, async ({ page }) => {
  await page.goto("/");
  const posts = postsOf(page);
  const calc = calculator(page);
  const step = async (click: string, heading: string) => {
    await calc.getByRole("button", { name: click }).click();
    await expect(calc.getByRole("heading", { name: heading })).toBeFocused();
  };
  await step("SEO & Digital Marketing", "When do you need it?");
  await step("Standard (3-4 weeks)", "How complex is it?");
  await step("Back", "When do you need it?");
  await calc.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
  await calc.getByRole("button", { name: "Medium" }).click();
  await calc.getByLabel("Project description").fill("Local SEO for three branches");
  await step("Continue", calculatorText.headings[5]);
  expect(posts.forms).toEqual([]);
  // Only the funnel's beacons: each step once, the one taken again after Back not again.
  await expect.poll(() => posts.beacons).toEqual(["2", "3", "4", "5"]);
});

// Once, with JavaScript: that browser gets every kind of answer (documents, route data, the
// actions' data, scripts); a step page as a browser without JavaScript gets it is fetched below.
test("the access key appears in no HTML or JavaScript the site serves", { tag: "@once" }, async ({ page, request, formService }) => {
  const bodies: string[] = [];
  page.on("response", async (response) => {
    if (/html|javascript|json/.test(response.headers()["content-type"] ?? "")) bodies.push(await response.text().catch(() => ""));
  });
  for (const path of ["/", "/services", "/work", "/about", "/no-such-page"]) await page.goto(path);
  // Pages the actions render (errors, then a send) carry no key either.
  const calc = await upToDetails(page, formService.token);
  await calc.getByLabel("Email").fill("not-an-email");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
  await calc.getByLabel("Email").fill(order.email);
  await sent(page);
  // Every script the home page loads, whether or not this project runs them.
  const html = await (await request.get("/")).text();
  const srcs = new Set([...html.matchAll(/(?:src|href)="(\/build\/[^"]+\.js)"/g)].map((m) => m[1]!));
  expect(srcs.size).toBeGreaterThan(0);
  for (const src of srcs) bodies.push(await (await request.get(src)).text());
  const step = await request.post("/?index", { form: { formName: "calculator", "state.step": "1", service: "ai" }, maxRedirects: 0 });
  expect(step.status()).toBe(303);
  bodies.push(html, await (await request.get(step.headers()["location"]!)).text());
  for (const body of bodies) expect(body).not.toContain(TEST_ACCESS_KEY);
});

test("with no key configured, a send lands in the outbox file and the visitor sees success", async ({ page }) => {
  const token = `Outbox ${test.info().project.name} ${Date.now()}`;
  await upToDetails(page, token, { site: sites.outbox.url });
  await sent(page);
  // Stored first, then written to the outbox a moment later.
  const mine = async () =>
    (await readFile(sites.outbox.env.OUTBOX_FILE!, "utf8").catch(() => ""))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, string>)
      .filter((l) => l.from_name === `${order.company} ${token}`);
  await expect.poll(async () => (await mine()).length).toBe(1);
  const [lead] = await mine();
  expect(lead!.message).toContain(`Estimated cost: ${price}`);
  expect(JSON.stringify(lead)).not.toContain(TEST_ACCESS_KEY);
});
