import { navLinks, otherPages } from "~/content/navigation";
import { site } from "~/content/site";

export function loader() {
  const urls = [...navLinks, ...otherPages].map((link) => `  <url><loc>${new URL(link.to, site.url).href}</loc></url>`).join("\n");
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
  return new Response(body, { headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" } });
}
