import { useLocation, useNavigate } from "@remix-run/react";
import { useEffect, useRef, type MouseEvent, type ReactNode } from "react";

/** Off the home page, Contact Us first navigates to / and scrolls after this delay (docs/product.md). */
const SCROLL_DELAY_MS = 100;

function scrollToContact() {
  const section = document.getElementById("contact");
  if (!section) return;
  const reduce = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  section.scrollIntoView({ behavior: reduce ? "auto" : "smooth", block: "start" });
  // Keyboard and screen-reader users land where they scrolled to.
  section.querySelector<HTMLElement>("h2")?.focus({ preventScroll: true });
}

/**
 * Contact Us: a plain link to /#contact without JavaScript; with it, a smooth scroll on the home
 * page, or a client-side navigation to / followed by the scroll.
 */
export function ContactLink({ className, children, onNavigate }: { className?: string; children: ReactNode; onNavigate?: () => void }) {
  const location = useLocation();
  const navigate = useNavigate();
  const scrollWhenHome = useRef(false);

  // Once the navigation to / has rendered the home page, scroll after the delay.
  useEffect(() => {
    if (!scrollWhenHome.current || location.pathname !== "/") return;
    scrollWhenHome.current = false;
    const timer = window.setTimeout(scrollToContact, SCROLL_DELAY_MS);
    return () => window.clearTimeout(timer);
  }, [location]);

  function onClick(event: MouseEvent<HTMLAnchorElement>) {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    onNavigate?.();
    if (location.pathname === "/") {
      scrollToContact();
      return;
    }
    scrollWhenHome.current = true;
    navigate("/", { preventScrollReset: true });
  }

  return (
    <a href="/#contact" className={className} onClick={onClick}>
      {children}
    </a>
  );
}
