import { Scripts } from "@remix-run/react";

const HELD = "remix-scripts";

/**
 * Remix's <Scripts>, held back until the browser has painted the server's page once. The server
 * puts them in an inert <template>; a few lines of inline script move them into place after the
 * first paint, so the hydration modules are neither fetched nor run before the visitor sees the
 * page. By the time React hydrates, the document is exactly what <Scripts> renders, which is what
 * the browser's render (the first line below) expects.
 * Why: docs/decisions/0010-scripts-after-first-paint.md.
 */
export function ScriptsAfterPaint({ nonce }: { nonce: string }) {
  if (typeof document !== "undefined") return <Scripts nonce={nonce} />;
  return (
    <>
      <template id={HELD}>
        <Scripts nonce={nonce} />
      </template>
      <script nonce={nonce} dangerouslySetInnerHTML={{ __html: RELEASE }} />
    </>
  );
}

// Released when the browser reports the first contentful paint (the frame the visitor saw), at
// once where nothing will be painted (a hidden tab, no paint timing), and after 3 s at the latest.
const RELEASE = `(function (self) {
  var released = false;
  function release() {
    if (released) return;
    released = true;
    var held = document.getElementById(${JSON.stringify(HELD)});
    if (held) held.replaceWith(document.importNode(held.content, true));
    self.remove();
  }
  var types = (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
  if (document.visibilityState === "hidden" || types.indexOf("paint") < 0) return release();
  new PerformanceObserver(function (list, observer) {
    if (list.getEntriesByName("first-contentful-paint").length) observer.disconnect(), release();
  }).observe({ type: "paint", buffered: true });
  document.addEventListener("visibilitychange", release, { once: true });
  setTimeout(release, 3000);
})(document.currentScript);`;
