import { useLocation } from "@remix-run/react";
import { useEffect, useRef } from "react";

/** A heading (or the element itself) to put focus on, made focusable by script if it is not. */
function focusTarget(element: HTMLElement) {
  const heading = element.matches("h1, h2, h3") ? element : element.querySelector<HTMLElement>("h1, h2, h3");
  const target = heading ?? element;
  if (!target.matches("a[href], button, input, select, textarea, [tabindex]")) target.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true }); // the router has scrolled already
}

/**
 * Where focus goes after a client-side navigation, for keyboard and screen-reader visitors: to the
 * heading of an in-page target (`#calculator`, `/services#seo-digital-marketing`), or to a new
 * page's `h1`, which also announces the page. Focus already inside the target, or on a field in
 * error (a form that moved it itself, e.g. from its error summary's page), is left alone, and so are
 * changes of the query alone (tabs, filters).
 */
export function FocusOnNavigate() {
  const location = useLocation();
  const previous = useRef(location);
  useEffect(() => {
    const before = previous.current;
    previous.current = location;
    if (before.key === location.key) return; // the first render: the browser decides
    const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target) {
      if (!target.contains(document.activeElement) && !document.activeElement?.matches("[aria-invalid]")) focusTarget(target);
    } else if (before.pathname !== location.pathname) {
      const h1 = document.querySelector<HTMLElement>("main h1");
      if (h1) focusTarget(h1);
    }
  }, [location]);
  return null;
}
