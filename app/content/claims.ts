import type { Claim, Image } from "./types";

/** Hero claims (docs/product.md, "Pages"). Keep all other copy consistent with these. */
export const claims: readonly Claim[] = [
  { value: "10+", label: "Projects completed" },
  { value: "80%", label: "Client satisfaction" },
  { value: "2+", label: "Years experience" },
];

export const hero = {
  eyebrow: "Digital services from Johannesburg",
  heading: "Software, search and automation that pull their weight",
  lead:
    "We are a Johannesburg team that builds custom software, grows your search traffic, " +
    "puts AI to work on repetitive tasks and sets Zoho up properly. One partner, clear quotes " +
    "and results you can measure.",
  /**
   * Beside the text on wide screens: what the calculator gives a visitor, an example that opens its
   * estimate's own page, `href`. Its alt names the
   * link; pricing.test.ts checks both against the calculator.
   */
  visual: {
    src: "/images/hero-estimate.svg",
    alt: "Open this example estimate: Software Development at USD 2,500, times 1.5 for urgent and 1.5 for complex, makes USD 5,625.",
    width: 480,
    height: 400,
    href: "/estimate?service=softwareDev&timeframe=urgent&complexity=complex",
  },
} as const satisfies { eyebrow: string; heading: string; lead: string; visual: Image & { href: string } };
