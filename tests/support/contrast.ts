import type { Page } from "@playwright/test";

/**
 * Colour contrast as WCAG defines it, measured in the page against every colour a background is
 * made of: each stop of a gradient (axe skips gradients), composited over what lies beneath when
 * translucent. `ratio` is the lowest against any of them; `said` says it all, for a failure;
 * `drawn`, an outline is drawn at all (solid or other, 2 px or more); `key`, the element's path.
 */
type Contrast = { said: string; ratio: number; drawn: boolean; key: string };

/** Runs in the browser (self-contained): each element's text or focus outline against its backdrop; `selector` null: the focused element. */
function measure({ selector, kind }: { selector: string | null; kind: "text" | "outline" }): Contrast[] {
  type RGBA = [number, number, number, number];
  const parse = (css: string): RGBA => {
    const n = (css.match(/[\d.]+/g) ?? []).map(Number);
    return [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0, n.length > 3 ? n[3]! : 1];
  };
  const over = (top: RGBA, bottom: RGBA) => [0, 1, 2].map((i) => top[i]! * top[3] + bottom[i]! * (1 - top[3])).concat(1) as RGBA;
  const colorsOf = (style: CSSStyleDeclaration) =>
    [...(style.backgroundImage.match(/rgba?\([^)]*\)/g) ?? []), style.backgroundColor].map(parse).filter((c) => c[3] > 0);
  // Every colour the backdrop of `node` can show, from it down to the canvas (white).
  const backdrop = (node: Element | null): RGBA[] => {
    if (!node) return [[255, 255, 255, 1]];
    const own = colorsOf(getComputedStyle(node));
    if (own.length === 0) return backdrop(node.parentElement);
    if (own.every((c) => c[3] === 1)) return own;
    const below = backdrop(node.parentElement);
    return own.flatMap((c) => (c[3] === 1 ? [c] : below.map((b) => over(c, b))));
  };
  const luminance = ([r, g, b]: RGBA) => {
    const lin = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const ratio = (a: RGBA, b: RGBA) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi! + 0.05) / (lo! + 0.05);
  };
  const show = (c: RGBA) => `rgb(${c.slice(0, 3).map(Math.round).join(" ")})`;
  const one = (el: Element): Contrast => {
    const style = getComputedStyle(el);
    const color = parse(kind === "text" ? style.color : style.outlineColor);
    // Text sits on its own element's background; an outline is drawn outside it, on its parent's.
    const against = backdrop(kind === "text" ? el : el.parentElement);
    const lowest = Math.min(...against.map((b) => ratio(color, b)));
    const what = `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(" ")[0]}` : ""} "${(el.textContent ?? "").trim().slice(0, 40)}"`;
    const path: string[] = [];
    for (let n: Element | null = el; n; n = n.parentElement) path.unshift(`${n.tagName}${[...(n.parentElement?.children ?? [])].indexOf(n)}`);
    return {
      said: `${what}: ${show(color)} on ${against.map(show).join(", ")} = ${lowest.toFixed(2)}`,
      ratio: lowest,
      drawn: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
      key: path.join(">"),
    };
  };
  if (selector !== null) return [...document.querySelectorAll(selector)].map(one);
  const active = document.activeElement;
  return active && active !== document.body ? [one(active)] : [];
}

/** The contrast of the text, or the outline (a ring around an image), of each element matching `selector` against what lies behind it. */
export const contrasts = (page: Page, selector: string, kind: "text" | "outline") => page.evaluate(measure, { selector, kind });

/** Tabs through the page from the top, measuring each focus indicator; `missing`: those missing or thin. */
export async function focusRingContrasts(page: Page): Promise<{ rings: Contrast[]; missing: string[] }> {
  await page.evaluate(() => ((document.activeElement as HTMLElement | null)?.blur(), window.scrollTo(0, 0)));
  const [rings, missing, seen] = [[] as Contrast[], [] as string[], new Set<string>()];
  for (let i = 0; i < 150; i++) {
    await page.keyboard.press("Tab");
    const [step] = await page.evaluate(measure, { selector: null, kind: "outline" as const });
    if (!step || seen.has(step.key)) break;
    seen.add(step.key);
    if (step.drawn) rings.push(step);
    else missing.push(step.said);
  }
  return { rings, missing };
}

/** Resolves once a style change has applied and its transitions ended: a colour halfway is neither scheme's. */
export const transitionsEnded = (page: Page) =>
  page.evaluate(async () => {
    void getComputedStyle(document.body).color; // applies the change, starting its transitions
    await Promise.all(document.getAnimations().map((a) => (a instanceof CSSTransition ? a.finished.catch(() => undefined) : undefined)));
  });
