import { site } from "~/content/site";

/**
 * The agency as schema.org data (JSON-LD) for search engines, from the site facts. Built on the
 * server only (the home page's loader hands it to its meta, so no browser loads this code), and
 * rendered as <script type="application/ld+json">: a data block, which browsers never execute, so
 * the Content-Security-Policy neither blocks nor reports it.
 */
export function agencyJsonLd() {
  return {
    "@context": "https://schema.org",
    "@type": "ProfessionalService",
    "@id": `${site.url}/#organization`,
    name: site.name,
    description: site.tagline,
    url: `${site.url}/`,
    logo: new URL("/apple-touch-icon.png", site.url).href,
    image: new URL("/og-image.jpg", site.url).href,
    email: site.email,
    telephone: site.phoneHref.slice("tel:".length),
    foundingDate: String(site.foundedYear),
    address: { "@type": "PostalAddress", addressLocality: site.address.city, addressCountry: site.address.countryCode },
    areaServed: site.areaServed.map((name) => ({ "@type": name === site.address.country ? "Country" : "Place", name })),
    sameAs: [site.social.url],
  };
}
