/**
 * Site facts: the one module an operator edits to change the agency's name,
 * contact details, address or social link. Everything else reads from here.
 */

export interface SiteFacts {
  name: string;
  tagline: string;
  /** Canonical origin, no trailing slash. */
  url: string;
  /** Public inbox shown on the site (and the default FORM_INBOX). */
  email: string;
  /** Phone number as displayed. */
  phone: string;
  /** The same number as a tel: link. */
  phoneHref: string;
  /** countryCode: ISO 3166-1 alpha-2, for structured data. */
  address: { city: string; country: string; countryCode: string };
  social: { label: string; url: string };
  foundedYear: number;
  /** The information officer POPIA requires (named in the privacy notice, /privacy). */
  informationOfficer: { name: string; email: string; phone: string; phoneHref: string };
  /** Cities and regions the agency serves (structured data: areaServed). */
  areaServed: readonly string[];
}

export const site = {
  name: "Kopano Digital",
  tagline: "Software, search, AI and Zoho for growing South African businesses",
  url: "https://www.kopanodigital.co.za",
  email: "hello@kopanodigital.co.za",
  phone: "+27 10 446 2817",
  phoneHref: "tel:+27104462817",
  address: { city: "Johannesburg", country: "South Africa", countryCode: "ZA" },
  social: { label: "LinkedIn", url: "https://www.linkedin.com/company/kopano-digital" },
  foundedYear: 2024,
  informationOfficer: { name: "Sipho Dlamini", email: "privacy@kopanodigital.co.za", phone: "+27 10 446 2817", phoneHref: "tel:+27104462817" },
  areaServed: ["Johannesburg", "Gauteng", "South Africa"],
} as const satisfies SiteFacts;
