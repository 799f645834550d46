import { expect, type Locator, type Page, test } from "@playwright/test";
import { COMPLEXITIES, estimate, estimateParts, formatUsd, SERVICES, TIMEFRAMES } from "../../app/calculator/pricing";
import { breakdownText } from "../../app/content/breakdown";
import { messages } from "../../app/content/messages";

/** The choices of steps 1-4, as the visitor sees them (labels). */
export type Choices = { service: string; timeframe: string; complexity: string; description: string };

export const calculator = (page: Page) => page.locator("#calculator");
export const progress = (page: Page) => calculator(page).getByText(/^Step \d of 5$/);
export const contactForm = (page: Page) => page.locator("#contact");

/** Each field of `scope`, by its label, holds its value. */
export async function expectValues(scope: Locator, values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) await expect(scope.getByLabel(label)).toHaveValue(value);
}

/** Choices for a test that needs step 5 and nothing particular of it. */
export const dispatchApp: Choices = {
  service: "Software Development",
  timeframe: "Urgent (1-2 weeks)",
  complexity: "Complex",
  description: "A dispatch app for 40 drivers",
};

/** The address of a step's own page, without JavaScript (decision 0016). */
export const DRAFT_URL = /\/\?draft=[\w-]{22}&step=[1-5]#wizard$/;

/** Where the wizard is looked at: the smallest phone, a common one, a desktop (width, height). */
export const WIZARD_VIEWPORTS = [
  [320, 568],
  [390, 844],
  [1280, 800],
] as const;

/**
 * A page's posts from now on: forms (their addresses), and the funnel's beacons (POST /steps,
 * decision 0036) by their event, or "unexpected fields" for one carrying more than that and the
 * landing; `pages`, the statuses of the posts that navigated (a form sent without JavaScript).
 */
export function postsOf(page: Page) {
  const posts = { forms: [] as string[], beacons: [] as string[], pages: [] as number[] };
  page.on("response", (r) => r.request().isNavigationRequest() && r.request().method() === "POST" && posts.pages.push(r.status()));
  page.on("request", (r) => {
    if (r.method() !== "POST") return;
    if (new URL(r.url()).pathname !== "/steps") return void posts.forms.push(r.url());
    const fields = new URLSearchParams(r.postData() ?? "");
    const plain = [...fields.keys()].every((name) => name === "event" || name === "visit.landing");
    posts.beacons.push(plain ? (fields.get("event") ?? "") : "unexpected fields");
  });
  return posts;
}

const valueOf = (list: readonly { value: string; label: string }[], label: string) => list.find((o) => o.label === label)!.value;

/** The choices as values, from their labels as the visitor clicks them (an unknown label throws). */
const valuesOf = (c: { service: string; timeframe?: string; complexity?: string }) =>
  ({
    service: valueOf(SERVICES, c.service),
    timeframe: c.timeframe && valueOf(TIMEFRAMES, c.timeframe),
    complexity: c.complexity && valueOf(COMPLEXITIES, c.complexity),
  }) as Parameters<typeof estimateParts>[0];

/** The rule's figure for these choices (an unchosen complexity is Medium): only pricing.test.ts writes prices down. */
export const priceOf = (choices: { service: string; timeframe?: string; complexity?: string }) => formatUsd(estimate(valuesOf(choices)));

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The breakdown's rows for these choices, as step 5 and an estimate's page show them, from the rule. */
export function breakdownRows(choices: { service: string; timeframe: string; complexity: string }): RegExp[] {
  const { base, factors, total } = estimateParts(valuesOf(choices));
  const multipliers = factors.map((f) => escaped(String(f.multiplier)));
  return [
    new RegExp(`^${escaped(base.label)}, ${breakdownText.basePrice}\\s*${escaped(formatUsd(base.amount))}$`),
    // Each multiplier in words as well ("Complex, 50% more").
    ...factors.map((f, i) => new RegExp(`^${escaped(f.label)}, ${escaped(breakdownText.change[f.multiplier]!)}\\s*× ${multipliers[i]}$`)),
    // A no-break space keeps "×" with its number.
    new RegExp(`^Your estimate \\(${[escaped(formatUsd(base.amount)), ...multipliers].join(" ×\\s")}\\)\\s*${escaped(formatUsd(total))}$`),
  ];
}

/**
 * The wizard at step 5 with these choices, on `site` (default: the project's): clicks with
 * JavaScript; without it, unless `walk` (calculator-steps.spec's 303s), step 4's post alone.
 */
export async function atStep5(page: Page, c: Choices, { site = "", walk = false } = {}) {
  const calc = calculator(page);
  if (test.info().project.use.javaScriptEnabled === false && !walk) {
    const form = {
      formName: "calculator",
      "state.step": "4",
      ...Object.fromEntries(Object.entries(valuesOf(c)).map(([name, value]) => [`state.${name}`, value])),
      description: c.description,
      intent: "continue",
    };
    // A keep-alive socket the server closed as idle (5 s) just as this post went out on it resets;
    // a browser sends such a request again on a new connection, and so does this (once).
    const post = () => page.request.post(`${site}/?index`, { form, maxRedirects: 0 });
    const answer = await post().catch((error: Error) => (/ECONNRESET/.test(error.message) ? post() : Promise.reject(error)));
    expect(answer.status()).toBe(303);
    await page.goto(`${site}${answer.headers()["location"]}`);
  } else {
    await page.goto(`${site}/`);
    await expect(progress(page)).toHaveText("Step 1 of 5");
    for (const [step, choice] of [c.service, c.timeframe, c.complexity].entries()) {
      await calc.getByRole("button", { name: choice, exact: true }).click();
      await expect(progress(page)).toHaveText(`Step ${step + 2} of 5`);
    }
    await calc.getByLabel("Project description").fill(c.description);
    await calc.getByRole("button", { name: "Continue" }).click();
  }
  await expect(progress(page)).toHaveText("Step 5 of 5");
}

/** Each field of `scope`, by its label, given its value (an option's value for a select). */
export async function fillValues(scope: Locator, values: Record<string, string>) {
  for (const [label, value] of Object.entries(values)) {
    const field = scope.getByLabel(label);
    await ((await field.evaluate((el) => el.tagName === "SELECT")) ? field.selectOption(value) : field.fill(value));
  }
}

/** Step 5's fields filled in: the name where one is given, the company, the email and the phone. */
export const fillDetails = async (page: Page, d: { name?: string; company: string; email: string; phone: string }) =>
  fillValues(calculator(page), {
    ...(d.name === undefined ? {} : { "Your name (optional)": d.name }),
    "Company name": d.company,
    Email: d.email,
    Phone: d.phone,
  });

/** Step 5 sent and thanked: its reference. */
export async function sendRequest(page: Page) {
  await calculator(page).getByRole("button", { name: "Send My Request" }).click();
  await expect(calculator(page).getByRole("status")).toHaveText(messages.calculatorSent);
  return (await calculator(page).locator(".reference").textContent())!;
}
