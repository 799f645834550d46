/** The main navigation, in order. The sitemap lists these and `otherPages`. */
export const navLinks = [
  { to: "/", label: "Home" },
  { to: "/services", label: "Services" },
  { to: "/work", label: "Our Work" },
  { to: "/about", label: "About" },
] as const;

/** Pages outside the main navigation (linked from the footer), for the sitemap. */
export const otherPages = [{ to: "/privacy", label: "Privacy notice" }] as const;
