/**
 * The pages as lynx and w3m print them (`-dump`): adjacent links and controls stand apart, and a
 * control shows its words, never a code (lynx shows a <button>'s value: so every submit control is
 * an <input type="submit"> whose value is its label, decision 0044).
 */
import { spawnSync } from "node:child_process";
import type { APIRequestContext } from "@playwright/test";
import { COMPLEXITIES, SERVICES, TIMEFRAMES } from "../app/calculator/pricing";
import { LEVELS } from "../app/content/levels";
import { expect, test } from "./support/fixtures";

const BROWSERS = {
  lynx: ["-dump", "-nolist", "-stdin", "-force_html", "-assume_charset=utf-8", "-display_charset=utf-8", "-width=300"],
  w3m: ["-dump", "-T", "text/html", "-I", "UTF-8", "-O", "UTF-8", "-cols", "300"],
} as const;

/** The page as the text browser prints it, whitespace collapsed. Synchronous, so it ends with the test. */
function dump(browser: keyof typeof BROWSERS, html: string): string {
  const run = spawnSync(browser, BROWSERS[browser], { input: html, encoding: "utf8", timeout: 20_000 });
  if (run.error) throw new Error(`${browser} did not run (${run.error.message}): bash scripts/test.sh installs Debian's ${browser}`);
  expect(run.status, `${browser}: ${run.stderr}`).toBe(0);
  return run.stdout.replace(/\s+/g, " ");
}

/** Codes a control must never show: the choices' values, the old intents, step numbers, and lynx's "(BUTTON)" for a button without one. */
const CODES = [...[...SERVICES, ...TIMEFRAMES, ...COMPLEXITIES].map((o) => o.value), ..."continue back send BUTTON SUBMIT 1 2 3 4".split(" ")];
const SHOWS_A_CODE = new RegExp(`[([](${CODES.join("|")})[)\\]]`);

/** A calculator step's page without JavaScript, reached by posting the step before it as its button would. */
async function stepPage(request: APIRequestContext, fields: Record<string, string>) {
  const answer = await request.post("/?index", { form: { formName: "calculator", "state.complexity": "medium", ...fields } });
  expect(answer.url()).toMatch(/\/\?draft=[\w-]{22}&step=[1-5]#/);
  return answer.text();
}

const chosen = { "state.service": "ai", "state.timeframe": "urgent", "state.complexity": "complex" };

for (const browser of ["lynx", "w3m"] as const) {
  test.describe(browser, { tag: "@once" }, () => {
    test("the pages' links and controls stand apart (header, hero, tabs, calls to action, cards, the 404), with names, never codes", async ({ request }) => {
      const page = dump(browser, await (await request.get("/")).text());
      expect(page).toMatch(/Kopano Digital \[?Menu/);
      expect(page).toContain("Estimate My Project Contact Us");
      expect(page).toContain("Get Started View Our Work");
      expect(page).toContain("Software Development SEO & Digital Marketing AI Solutions Zoho Solutions");
      for (const words of ["Software Development Mobile App Development SEO & Digital Marketing AI Solutions Zoho Solutions", "Estimate This", "Send Message"])
        expect(page.replace(/[[\]]/g, "")).toContain(words);
      const work = dump(browser, await (await request.get("/work")).text());
      expect(work).toContain("Estimate My Project Meet the Team");
      expect(work).toMatch(/Live site of SpazaStock offline stocktake app Code repository of SpazaStock offline stocktake app/);
      const notFound = dump(browser, await (await request.get("/no-such-page")).text());
      expect(notFound).toContain("Go to the Home Page See Our Services");
      const estimate = dump(browser, await (await request.get("/estimate?service=softwareDev&timeframe=urgent&complexity=complex")).text());
      expect(estimate.replace(/[[\]]/g, "")).toContain("Start a Request with These Answers");
      for (const shown of [page, work, notFound, estimate]) expect(shown).not.toMatch(SHOWS_A_CODE);
    });

    test("the calculator's steps without JavaScript, each posted as its button posts it: every control shows its words, none a code", async ({ request }) => {
      const steps = [
        await stepPage(request, { "state.step": "1", service: "AI Solutions" }),
        await stepPage(request, { "state.step": "2", "state.service": "ai", timeframe: "Urgent (1-2 weeks)" }),
        await stepPage(request, { "state.step": "3", "state.service": "ai", "state.timeframe": "urgent", complexity: "Complex" }),
        await stepPage(request, { "state.step": "4", ...chosen, description: "A helpdesk bot", intent: "Continue" }),
      ].map((html) => dump(browser, html));
      expect(steps.map((page) => /Step (\d) of 5/.exec(page)?.[1])).toEqual(["2", "3", "4", "5"]);
      for (const page of steps) expect(page).not.toMatch(SHOWS_A_CODE);
      const [two, , four, five] = steps.map((page) => page.replace(/[[\]]/g, ""));
      // Each choice with its line for the service chosen after it (docs/product.md).
      expect(two).toContain(TIMEFRAMES.map((o) => `${o.label} ${LEVELS.ai[o.value]}`).join(" "));
      expect(four).toMatch(/Continue Back/);
      expect(five).toMatch(/Send My Request Back/);
      expect(five).toMatch(/AI Solutions Change/);
      expect(five).toMatch(/A helpdesk bot Change/);
    });
  });
}
