import { Link, NavLink, useLocation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { navLinks } from "~/content/navigation";
import { site } from "~/content/site";
import { ContactLink } from "./contact-link";

/**
 * Navigation bar. On small screens a <details> toggle opens and closes the links without
 * JavaScript; with it, the menu also closes on navigation and on Escape. The links sit beside the
 * <details>, not inside it: a closed <details> hides its content in every browser, and only the
 * newest let CSS show it again (::details-content), so wide screens would lose the links.
 */
export function SiteHeader() {
  const [open, setOpen] = useState(false);
  const summaryRef = useRef<HTMLElement>(null);
  const location = useLocation();

  // Any navigation closes it, an in-page one (#wizard) too.
  useEffect(() => setOpen(false), [location]);

  useEffect(() => {
    if (!open) return;
    function onKeyDown(event: KeyboardEvent) {
      if (event.key !== "Escape") return;
      setOpen(false);
      summaryRef.current?.focus();
    }
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [open]);

  return (
    <header className="site-header">
      <div className="container nav-bar">
        <a className="brand" href="/">
          <img className="brand-mark" src="/images/logo.svg" alt="" width={32} height={32} />
          {site.name}
        </a>{" "}
        {/* Spaces between the bar's parts: a text browser (lynx, w3m) runs them together otherwise. */}
        <details className="nav-menu" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
          <summary ref={summaryRef}>
            <svg className="menu-icon menu-icon-open" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
              <path d="M4 7h16M4 12h16M4 17h16" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
            <svg className="menu-icon menu-icon-close" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
              <path d="M6 6l12 12M18 6L6 18" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
            </svg>
            Menu
          </summary>
        </details>
        <nav className="nav-panel" aria-label="Main">
          <ul className="nav-links">
            {navLinks.map((link) => (
              <li key={link.to}>
                <NavLink to={link.to} end prefetch="intent">
                  {link.label}
                </NavLink>
              </li>
            ))}
          </ul>
          {/* Phones: the calculator is thousands of pixels down the home page; this is the short way. */}
          <Link className="btn btn--ghost nav-estimate" to="/#wizard">
            Estimate My Project
          </Link>{" "}
          <ContactLink className="btn" onNavigate={() => setOpen(false)}>
            Contact Us
          </ContactLink>
        </nav>
      </div>
    </header>
  );
}
