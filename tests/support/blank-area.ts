import type { Locator } from "@playwright/test";

/** An empty rectangle in a section, in CSS px from the viewport's top left. */
export type Blank = { x: number; y: number; width: number; height: number };

/**
 * The tallest rectangle wider than `minWidth` in `section`'s box with no content in it: no text,
 * control, link or image ("a box with nothing in it is empty", so backgrounds, borders
 * and cards do not count). Null when there is none that wide.
 *
 * A largest empty rectangle has each side on the section's edge or on a piece of content, so its
 * left and right are among those edges: for each such pair, the tallest gap between the pieces
 * that reach between them. O(n³) over a section's few hundred pieces of content. Measured with the
 * section's top at the screen's top, where a sticky head (the calculator's) is in its own place.
 */
export const tallestBlank = (section: Locator, minWidth: number) =>
  section.evaluate((root, minWidth): Blank | null => {
    root.scrollIntoView({ block: "start", behavior: "instant" });
    const box = root.getBoundingClientRect();
    const rects: DOMRect[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent!.trim()) continue;
      range.selectNodeContents(node);
      rects.push(...range.getClientRects());
    }
    for (const el of root.querySelectorAll("input:not([type=hidden]), select, textarea, button, a, img, svg, video, canvas, iframe"))
      rects.push(...el.getClientRects());
    const shown = rects
      // A visually hidden text's 1 px box is no content (nor is what is out of the section).
      .filter((r) => r.width > 1 && r.height > 1 && r.right > box.left && r.left < box.right && r.bottom > box.top && r.top < box.bottom)
      .map((r) => ({
        left: Math.max(r.left, box.left),
        right: Math.min(r.right, box.right),
        top: Math.max(r.top, box.top),
        bottom: Math.min(r.bottom, box.bottom),
      }))
      .sort((a, b) => a.top - b.top);
    const xs = [...new Set([box.left, box.right, ...shown.flatMap((r) => [r.left, r.right])])].sort((a, b) => a - b);
    let best: Blank | null = null;
    for (const [i, left] of xs.entries())
      for (const right of xs.slice(i + 1)) {
        if (right - left <= minWidth) continue;
        let top = box.top;
        const gap = (bottom: number) => {
          const taller = !best || bottom - top > best.height || (bottom - top === best.height && right - left > best.width);
          if (bottom > top && taller) best = { x: left, y: top, width: right - left, height: bottom - top };
        };
        for (const r of shown)
          if (r.left < right && r.right > left) {
            gap(r.top);
            top = Math.max(top, r.bottom);
          }
        gap(box.bottom);
      }
    return best;
  }, minWidth);
