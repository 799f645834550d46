/**
 * The calculator's send, with JavaScript on and off: one request end to end with every field as
 * the form service receives it, the wizard starting over after a send, Back keeping everything,
 * each field's message, a lead that cannot be stored (the failure text, nothing lost), no second
 * send on a reload, the outbox when no key is set, and the access key in nothing the site serves.
 * With JavaScript, steps 1-4 in the browser and focus on each step. Step 5 itself, the step pages
 * and the history have specs of their own (calculator-*.spec.ts).
 */
import type { Page } from "@playwright/test";
import { calculatorText } from "../app/content/calculator";
import { messages } from "../app/content/messages";
import { site } from "../app/content/site";
import { expect, test } from "./support/fixtures";
import { sites, TEST_ACCESS_KEY } from "./support/sites";
import { atStep5, calculator, postsOf, priceOf, progress } from "./support/wizard";

const SUCCESS = messages.calculatorSent;
const FAILURE = messages.calculatorFailed;

interface Order {
  service: string;
  timeframe: string;
  complexity: string;
  description: string;
  name?: string;
  company: string;
  email: string;
  phone: string;
}

const order: Order = {
  service: "Software Development",
  timeframe: "Urgent (1-2 weeks)",
  complexity: "Complex",
  description: "A dispatch app for 40 drivers,\nwith proof of delivery photos.",
  name: "Thandi Nkosi",
  company: "Gauteng Freight (Pty) Ltd",
  email: "ops@gautengfreight.co.za",
  phone: "+27 11 555 0101",
};

/** The order with this test's token in its company name, so the fake service can tell it apart. */
const tagged = (o: Order, token: string): Order => ({ ...o, company: `${o.company} ${token}` });

/** Step 5 with the order's choices and its details typed in (`walk`: see atStep5). */
async function chooseUpToDetails(page: Page, o: Order, site = "", { walk = false } = {}) {
  const calc = calculator(page);
  await atStep5(page, o, { site, walk });
  if (o.name) await calc.getByLabel("Your name (optional)").fill(o.name);
  await calc.getByLabel("Company name").fill(o.company);
  await calc.getByLabel("Email").fill(o.email);
  await calc.getByLabel("Phone").fill(o.phone);
}

// One combination end to end; every price in the table is app/calculator/pricing.test.ts's.
const price = priceOf(order);
test(`the wizard sends ${order.service} / ${order.timeframe} / ${order.complexity} at ${price} with every field`, async ({ page, formService }) => {
  const o = tagged(order, formService.token);
  await chooseUpToDetails(page, o, "", { walk: true });
  await expect(calculator(page).locator(".estimate")).toContainText(price);
  await calculator(page).getByRole("button", { name: "Send My Request" }).click();

  await expect(calculator(page).getByRole("status")).toHaveText(SUCCESS);
  await expect(progress(page)).toHaveText("Step 1 of 5");
  await expect.poll(async () => (await formService.received()).length).toBe(1);
  const [payload] = (await formService.received()) as Record<string, string>[];
  // The sender is the company name entered (the specification's from_name); the person's name is in the message.
  expect(payload).toMatchObject({ access_key: TEST_ACCESS_KEY, to: site.email, from_name: o.company });
  expect(payload!.subject).toBe(`New cost estimate request from ${o.company}`);
  for (const line of [
    `Service: ${o.service}`,
    `Timeframe: ${o.timeframe}`,
    `Complexity: ${o.complexity}`,
    "Description: A dispatch app for 40 drivers,",
    "with proof of delivery photos.",
    `Estimated cost: ${price}`,
    `Name: ${o.name}`,
    `Company: ${o.company}`,
    `Email: ${o.email}`,
    `Phone: ${o.phone}`,
  ]) {
    expect(payload!.message).toContain(line);
  }
});

test("after a successful send the wizard starts over with every field cleared and complexity back to Medium", async ({ page }) => {
  await chooseUpToDetails(page, order);
  await calculator(page).getByRole("button", { name: "Send My Request" }).click();
  await expect(calculator(page).getByRole("status")).toHaveText(SUCCESS);
  await expect(page).toHaveURL(/\?sent=calculator&receipt=[\w-]{22}#wizard$/);

  const calc = calculator(page);
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await calc.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
  await expect(calc.getByRole("button", { name: "Medium" })).toHaveAttribute("aria-current", "true");
  await expect(calc.getByRole("button", { name: "Complex" })).not.toHaveAttribute("aria-current", "true");
  await calc.getByRole("button", { name: "Medium" }).click();
  await expect(calc.getByLabel("Project description")).toHaveValue("");
  await calc.getByLabel("Project description").fill("Chatbot");
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(calc.getByLabel("Your name (optional)")).toHaveValue("");
  await expect(calc.getByLabel("Company name")).toHaveValue("");
  await expect(calc.getByLabel("Email")).toHaveValue("");
  await expect(calc.getByLabel("Phone")).toHaveValue("");
  await expect(calc.locator(".estimate")).toContainText(priceOf({ service: "AI Solutions", timeframe: "Standard (3-4 weeks)", complexity: "Medium" }));
});

test("Back goes one step at a time and keeps what was chosen and typed", async ({ page }) => {
  await chooseUpToDetails(page, order);
  const calc = calculator(page);
  await calc.getByRole("button", { name: "Back" }).click();
  await expect(progress(page)).toHaveText("Step 4 of 5");
  await expect(calc.getByLabel("Project description")).toHaveValue(order.description);
  await calc.getByRole("button", { name: "Back" }).click();
  await expect(progress(page)).toHaveText("Step 3 of 5");
  await expect(calc.getByRole("button", { name: "Complex" })).toHaveAttribute("aria-current", "true");
  await calc.getByRole("button", { name: "Back" }).click();
  await expect(progress(page)).toHaveText("Step 2 of 5");
  await expect(calc.getByRole("button", { name: "Urgent (1-2 weeks)" })).toHaveAttribute("aria-current", "true");
  await calc.getByRole("button", { name: "Back" }).click();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  await expect(calc.getByRole("button", { name: "Software Development" })).toHaveAttribute("aria-current", "true");
  await expect(calc.getByRole("button", { name: "Back" })).toHaveCount(0);

  await calc.getByRole("button", { name: "Software Development" }).click();
  await calc.getByRole("button", { name: "Urgent (1-2 weeks)" }).click();
  await calc.getByRole("button", { name: "Complex" }).click();
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(calc.getByLabel("Your name (optional)")).toHaveValue(order.name!);
  await expect(calc.getByLabel("Company name")).toHaveValue(order.company);
  await expect(calc.getByLabel("Phone")).toHaveValue(order.phone);
});

test("invalid contact details get a message next to each field, keep their values, and send nothing", async ({ page, formService }) => {
  await chooseUpToDetails(page, tagged({ ...order, email: "not-an-email", phone: "call me" }, formService.token));
  const calc = calculator(page);
  await calc.getByLabel("Company name").fill("   ");
  await calc.getByRole("button", { name: "Send My Request" }).click();

  await expect(calc.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
  await expect(calc.getByLabel("Email")).toHaveAccessibleDescription("Please enter a valid email address");
  await expect(calc.getByLabel("Phone")).toHaveAccessibleDescription(/Phone number may only contain digits/);
  await expect(calc.getByLabel("Company name")).toHaveAccessibleDescription("Please enter your company name");
  await expect(calc.getByLabel("Email")).toHaveValue("not-an-email");
  await expect(calc.getByLabel("Phone")).toHaveValue("call me");
  await expect(progress(page)).toHaveText("Step 5 of 5");
  expect(await formService.settled()).toEqual([]);
});

test("step 4's description is optional: its hint asks for a few lines, Continue moves to step 5 with it empty, and the request goes", async ({
  page,
  formService,
}) => {
  await page.goto("/");
  const calc = calculator(page);
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await calc.getByRole("button", { name: "Relaxed (5-8 weeks)" }).click();
  await calc.getByRole("button", { name: "Simple" }).click();
  const description = calc.getByLabel("Project description (optional)");
  await expect(description).not.toHaveAttribute("required");
  await expect(description).toHaveAccessibleDescription(`${calculatorText.descriptionHint} ${calculatorText.descriptionBound}`);
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
  await expect(calc.locator(".summary-value")).toHaveText(["AI Solutions", "Relaxed (5-8 weeks)", "Simple", calculatorText.noDescription]);

  const company = `Quiet Co ${formService.token}`;
  await calc.getByLabel("Company name").fill(company);
  await calc.getByLabel("Email").fill("ops@quiet.example");
  await calc.getByLabel("Phone").fill("011 555 0199");
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(SUCCESS);
  await expect.poll(async () => (await formService.received()).length).toBe(1);
  const [payload] = (await formService.received()) as Record<string, string>[];
  expect(payload!.message).toContain(`Complexity: Simple\nDescription: ${calculatorText.noDescription}\nEstimated cost: `);
});

test("a description as long as the box allows, with line breaks, passes step 4: without JavaScript too, where each break is posted as two characters", async ({
  page,
}) => {
  const description = Array.from({ length: 50 }, () => "w".repeat(99)).join("\n") + "!";
  expect(description).toHaveLength(5000);
  await page.goto("/");
  const calc = calculator(page);
  await calc.getByRole("button", { name: "AI Solutions", exact: true }).click();
  await calc.getByRole("button", { name: "Relaxed (5-8 weeks)" }).click();
  await calc.getByRole("button", { name: "Simple" }).click();
  await calc.getByLabel("Project description").fill(description);
  await calc.getByRole("button", { name: "Continue" }).click();
  await expect(progress(page)).toHaveText("Step 5 of 5");
});

// What a failing, hanging or lying form service does to a lead is the queue's and the transport's
// (server/leads/*.test.ts, tests/ops/lead-delivery.spec.ts): the visitor's answer never waits on it.

test("a lead that cannot be stored shows the failure text and keeps everything on step 5", async ({ page }) => {
  const o = { ...order, company: `Unstored ${test.info().project.name}` };
  await page.goto(sites.unwritable.url + "/");
  await chooseUpToDetails(page, o, sites.unwritable.url);
  await calculator(page).getByRole("button", { name: "Send My Request" }).click();
  await expect(calculator(page).getByRole("alert")).toHaveText(FAILURE);
  await expect(progress(page)).toHaveText("Step 5 of 5");
  const calc = calculator(page);
  await expect(calc.getByLabel("Your name (optional)")).toHaveValue(o.name!);
  await expect(calc.getByLabel("Company name")).toHaveValue(o.company);
  await expect(calc.getByLabel("Email")).toHaveValue(o.email);
  await expect(calc.getByLabel("Phone")).toHaveValue(o.phone);
  await expect(calc.locator(".estimate")).toContainText(price);
  await calc.getByRole("button", { name: "Back" }).click();
  await expect(calc.getByLabel("Project description")).toHaveValue(o.description);
});

test("a refresh after a successful send does not send again", async ({ page, formService }) => {
  await chooseUpToDetails(page, tagged(order, formService.token));
  await calculator(page).getByRole("button", { name: "Send My Request" }).click();
  await expect(calculator(page).getByRole("status")).toHaveText(SUCCESS);
  await page.reload();
  await expect(progress(page)).toHaveText("Step 1 of 5");
  expect(await formService.settled()).toHaveLength(1);
});

test.describe("with JavaScript", { tag: "@needs-js" }, () => {
  test("steps 1-4 advance without a request, and focus moves to each new step's heading", async ({ page }) => {
    await page.goto("/");
    const posts = postsOf(page);
    const calc = calculator(page);
    await calc.getByRole("button", { name: "SEO & Digital Marketing" }).click();
    await expect(calc.getByRole("heading", { name: "When do you need it?" })).toBeFocused();
    await calc.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
    await expect(calc.getByRole("heading", { name: "How complex is it?" })).toBeFocused();
    await calc.getByRole("button", { name: "Back" }).click();
    await expect(calc.getByRole("heading", { name: "When do you need it?" })).toBeFocused();
    await calc.getByRole("button", { name: "Standard (3-4 weeks)" }).click();
    await calc.getByRole("button", { name: "Medium" }).click();
    await calc.getByLabel("Project description").fill("Local SEO for three branches");
    await calc.getByRole("button", { name: "Continue" }).click();
    await expect(calc.getByRole("heading", { name: calculatorText.headings[5] })).toBeFocused();
    expect(posts.forms).toEqual([]);
    // Only the funnel's beacons: each step once, the one taken again after Back not again.
    await expect.poll(() => posts.beacons).toEqual(["2", "3", "4", "5"]);
  });

  test("a reload keeps the visitor's place", async ({ page }) => {
    await chooseUpToDetails(page, order);
    await page.reload();
    await expect(progress(page)).toHaveText("Step 5 of 5");
    await expect(calculator(page).locator(".estimate")).toContainText(price);
    await calculator(page).getByRole("button", { name: "Back" }).click();
    await expect(calculator(page).getByLabel("Project description")).toHaveValue(order.description);
  });

  test("invalid fields are caught in the browser and focus goes to the first", async ({ page, formService }) => {
    await chooseUpToDetails(page, tagged({ ...order, email: "nope" }, formService.token));
    await calculator(page).getByRole("button", { name: "Send My Request" }).click();
    await expect(calculator(page).getByLabel("Email")).toBeFocused();
    expect(await formService.settled()).toEqual([]);
  });
});

// Once, with JavaScript: that browser gets every kind of answer (documents, route data, the
// actions' data, scripts); a step page as a browser without JavaScript gets it is fetched below.
test("the access key appears in no HTML or JavaScript the site serves", { tag: "@once" }, async ({ page, request, formService }) => {
  const bodies: string[] = [];
  page.on("response", async (response) => {
    const type = response.headers()["content-type"] ?? "";
    if (/html|javascript|json/.test(type)) bodies.push(await response.text().catch(() => ""));
  });
  for (const path of ["/", "/services", "/work", "/about", "/no-such-page"]) await page.goto(path);
  // Pages the actions render (errors, then a send) carry no key either.
  await chooseUpToDetails(page, tagged({ ...order, email: "not-an-email" }, formService.token));
  await calculator(page).getByRole("button", { name: "Send My Request" }).click();
  await expect(calculator(page).getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
  await calculator(page).getByLabel("Email").fill(order.email);
  await calculator(page).getByRole("button", { name: "Send My Request" }).click();
  await expect(calculator(page).getByRole("status")).toHaveText(SUCCESS);

  // Every script the home page loads, whether or not this project runs them.
  const html = await (await request.get("/")).text();
  const srcs = new Set([...html.matchAll(/(?:src|href)="(\/build\/[^"]+\.js)"/g)].map((m) => m[1]!));
  expect(srcs.size).toBeGreaterThan(0);
  for (const src of srcs) bodies.push(await (await request.get(src)).text());
  bodies.push(html);
  const step = await request.post("/?index", { form: { formName: "calculator", "state.step": "1", service: "ai" }, maxRedirects: 0 });
  expect(step.status()).toBe(303);
  bodies.push(await (await request.get(step.headers()["location"]!)).text());
  for (const body of bodies) expect(body).not.toContain(TEST_ACCESS_KEY);
});

test("with no key configured, a send lands in the outbox file and the visitor sees success", async ({ page }) => {
  const { readFile } = await import("node:fs/promises");
  const company = `Outbox Test ${test.info().project.name} ${Date.now()}`;
  const invoices = { service: "AI Solutions", timeframe: "Urgent (1-2 weeks)", complexity: "Complex", description: "Invoice capture" };
  await chooseUpToDetails(page, { ...invoices, company, email: "finance@example.co.za", phone: "011 555 0199" }, sites.outbox.url);
  const calc = calculator(page);
  await calc.getByRole("button", { name: "Send My Request" }).click();
  await expect(calc.getByRole("status")).toHaveText(SUCCESS);
  // Stored first, then written to the outbox a moment later.
  const outbox = async () =>
    (await readFile(sites.outbox.env.OUTBOX_FILE!, "utf8").catch(() => ""))
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, string>);
  await expect.poll(async () => (await outbox()).filter((l) => l.from_name === company).length).toBe(1);
  const mine = (await outbox()).find((l) => l.from_name === company);
  expect(mine?.message).toContain(`Estimated cost: ${priceOf(invoices)}`);
  expect(JSON.stringify(mine)).not.toContain(TEST_ACCESS_KEY);
});
