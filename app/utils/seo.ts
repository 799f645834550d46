import type { MetaDescriptor } from "@remix-run/node";
import { site } from "~/content/site";

/** A page's <title>: "Page | Site", or "Site | Tagline" for the home page. */
export function pageTitle(title: string, path?: string): string {
  return path === "/" ? `${site.name} | ${title}` : `${title} | ${site.name}`;
}

/** Title, description, Open Graph and canonical tags for one page. */
export function seo({ title, description, path }: { title: string; description: string; path: string }): MetaDescriptor[] {
  const fullTitle = pageTitle(title, path);
  const url = new URL(path, site.url).href;
  const image = new URL("/og-image.jpg", site.url).href;
  return [
    { title: fullTitle },
    { name: "description", content: description },
    { property: "og:type", content: "website" },
    { property: "og:site_name", content: site.name },
    { property: "og:title", content: fullTitle },
    { property: "og:description", content: description },
    { property: "og:url", content: url },
    { property: "og:image", content: image },
    { property: "og:image:width", content: "1200" },
    { property: "og:image:height", content: "630" },
    { property: "og:locale", content: "en_ZA" },
    { name: "twitter:card", content: "summary_large_image" },
    { tagName: "link", rel: "canonical", href: url },
  ];
}
