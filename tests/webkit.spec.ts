/**
 * A second engine, Safari's: Debian's WebKitGTK, driven by webdriverio through WebKitWebDriver on a
 * virtual display, against the `js` project's site. Chromium covers the rest.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { remote } from "webdriverio";
import { messages } from "../app/content/messages";
import { expect, test } from "@playwright/test";
import { freePort } from "./support/ports";
import { sites } from "./support/sites";
import { priceOf } from "./support/wizard";

const MINIBROWSER = process.env.WEBKIT_BROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const site = sites.js.url;

type Browser = Awaited<ReturnType<typeof remote>>;
let driver: ChildProcess | undefined;
let browser: Browser;

// One engine run is enough: it drives the site with JavaScript on.
test.describe("WebKit (WebKitGTK through WebDriver)", { tag: "@once" }, () => {
  // Every page loaded and hydrated: up to 45 s beside the other tests on a machine four times slower.
  test.describe.configure({ mode: "serial", timeout: 90_000 });
  test.beforeAll(async () => {
    const port = await freePort();
    // A virtual display (xvfb-run -a), in a process group of its own so that all of it stops together.
    driver = spawn("xvfb-run", ["-a", "WebKitWebDriver", `--port=${port}`], { detached: true, stdio: "ignore" });
    browser = await remote({
      hostname: "127.0.0.1",
      port,
      logLevel: "error",
      connectionRetryCount: 20,
      connectionRetryTimeout: 30_000,
      capabilities: { "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] } } as WebdriverIO.Capabilities,
    });
  });

  test.afterAll(async () => {
    await browser?.deleteSession().catch(() => undefined);
    if (driver?.pid) process.kill(-driver.pid, "SIGTERM");
  });

  async function open(path: string) {
    await browser.url(`${site}${path}`);
    // WebDriver returns at the load event, when Remix may not run the page yet: wait until it does.
    await browser.waitUntil(() => browser.execute(() => "__remixRouter" in window), { timeout: 15_000, timeoutMsg: `${path} never hydrated` });
  }

  /**
   * Clicks an element, or types `value` into it, once scrolled into view at once: WebDriver's own
   * scroll is smooth here (`scroll-behavior`), and its click would land where the element was.
   */
  async function press(element: ReturnType<Browser["$"]>, value?: string) {
    await browser.execute((el) => el.scrollIntoView({ block: "center", behavior: "instant" }), await element);
    await (value === undefined ? element.click() : element.setValue(value));
  }

  const mainNavLink = (name: string) => browser.$(`nav[aria-label="Main"]`).$(`a=${name}`);

  test("every page renders its heading and hydrates; the menu's toggle only on a phone-sized window, where it opens the links", async () => {
    expect(String(browser.capabilities.browserName)).toMatch(/MiniBrowser|WebKit/i);
    for (const [path, heading] of [
      ["/", "Software, search and automation that pull their weight"],
      ["/services", "What we build for you"],
      ["/work", "Projects we are proud of"],
      ["/about", "Why we started Kopano"],
      ["/privacy", "Privacy notice"],
    ] as const) {
      await open(path);
      expect(await browser.$("h1").getText(), path).toBe(heading);
      expect(await browser.getTitle(), path).toMatch(/Kopano Digital/);
    }

    await browser.setWindowSize(1280, 900);
    await open("/about");
    expect(await browser.$(".nav-menu > summary").isDisplayed()).toBe(false);
    for (const name of ["Home", "Services", "Our Work", "About"]) expect(await mainNavLink(name).isDisplayed(), name).toBe(true);
    expect(await browser.$("a=Contact Us").isDisplayed()).toBe(true);

    await browser.setWindowSize(390, 844);
    await browser.waitUntil(async () => (await browser.execute(() => window.innerWidth)) < 768);
    const toggle = browser.$(".nav-menu > summary");
    expect(await toggle.isDisplayed()).toBe(true);
    expect(await mainNavLink("Services").isDisplayed()).toBe(false);
    await toggle.click();
    await mainNavLink("Services").waitForDisplayed();
    await mainNavLink("Services").click();
    await browser.waitUntil(async () => (await browser.getUrl()).endsWith("/services"));
    await browser.waitUntil(async () => (await browser.$("h1").getText()) === "What we build for you");
    expect(await mainNavLink("Services").isDisplayed()).toBe(false);
    await browser.setWindowSize(1280, 900);
  });

  test("a submit control's words wrap within it where its box is narrow, as a button's did (decision 0044)", async () => {
    await open("/estimate?service=mobileApp&timeframe=urgent&complexity=complex");
    // The window cannot be made as narrow as a small phone: the control's box is, as it is there.
    const wrapped = await browser.execute(() => {
      const control = document.querySelector<HTMLInputElement>('.estimate-start input[type="submit"]')!;
      control.parentElement!.style.width = "200px";
      return { overflow: control.scrollWidth - control.clientWidth, width: control.offsetWidth, twoLines: control.offsetHeight > 60 };
    });
    expect(wrapped).toEqual({ overflow: 0, width: 200, twoLines: true });
  });

  test("the calculator runs its steps in the browser and sends the request", async () => {
    await open("/");
    const wizard = browser.$("#calculator");
    const step = (n: number) => browser.waitUntil(async () => (await wizard.$(".wizard-progress p").getText()).toLowerCase() === `step ${n} of 5`);
    // The wizard's controls are <input type="submit">, whose value is their label (decision 0044).
    const control = (label: string) => wizard.$(`input[type="submit"][value="${label}"]`);
    const choices = { service: "Software Development", timeframe: "Standard (3-4 weeks)", complexity: "Complex" };
    for (const [i, label] of Object.values(choices).entries()) {
      await press(control(label));
      await step(i + 2);
    }
    expect(await wizard.$(".estimate").getText()).toContain(priceOf(choices));
    await press(wizard.$("textarea"), "A customer portal for our 300 tenants, tested in WebKit.");
    await press(control("Continue"));
    await step(5);
    const details = { name: "Wendy Kit", companyName: "WebKit Smoke Test (Pty) Ltd", email: "webkit@example.com", phone: "+27 11 555 0100" };
    for (const [name, value] of Object.entries(details)) await press(wizard.$(`input[name="${name}"]`), value);
    await press(control("Send My Request"));
    await browser.waitUntil(async () => (await wizard.$('[role="status"]').getText()) === messages.calculatorSent, {
      timeout: 15_000,
      timeoutMsg: "no confirmation after sending",
    });
    await step(1);
  });
});
