import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { story, values } from "./about";
import { claims, hero } from "./claims";
import { DRAFT_LIFETIME_MINUTES, type PrivacyFacts, privacy } from "./privacy";
import { messages } from "./messages";
import { featuredProjects, projectCategories } from "./projects";
import { filterProjects, projects } from "./work";
import { servicePages } from "./service-pages";
import { services } from "./services";
import { site } from "./site";
import { team } from "./team";
import { testimonials } from "./testimonials";
import type { Image } from "./types";

const publicDir = fileURLToPath(new URL("../../public", import.meta.url));

/** A referenced SVG exists, is small, self-contained and sized as declared. */
function expectSvg(src: string, width: number, height: number): void {
  expect(src).toMatch(/^\/images\/[a-z0-9/-]+\.svg$/);
  const file = `${publicDir}${src}`;
  expect(existsSync(file), `${src} exists`).toBe(true);
  expect(statSync(file).size, `${src} stays small`).toBeLessThan(2.5 * 1024);
  const svg = readFileSync(file, "utf8");
  const tag = /<svg\b[^>]*>/.exec(svg)?.[0] ?? "";
  const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
  expect([attr("width"), attr("height"), attr("viewBox") !== undefined], `${src}: width, height, viewBox`).toEqual([String(width), String(height), true]);
  expect(svg, `${src} has no external references`).not.toMatch(/(?:href|src)="(?!#)|url\((?!#)|@import/);
}

/** Every entry has a distinct value for `key`. */
const expectUnique = <T>(items: readonly T[], key: (item: T) => string) => {
  const seen = items.map(key);
  expect(seen.filter((k, i) => seen.indexOf(k) !== i)).toEqual([]);
};
const expectText = (...texts: string[]) => {
  for (const t of texts) expect(t.trim(), "empty text").not.toBe("");
};
const slug = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

describe("services", () => {
  it("are the four tabs in the product's order, each with a unique key and an anchor's slug, a title, a description, six distinct details, deliverables, a long description and a 48×48 icon", () => {
    expect(services.map((s) => s.key)).toEqual(["softwareDev", "seo", "ai", "zoho"]);
    expectUnique(services, (s) => s.key);
    expectUnique(services, (s) => s.slug);
    for (const s of services) {
      expect(s.slug).toMatch(slug);
      expectText(s.title, s.description, ...s.details, servicePages[s.key].longDescription, ...servicePages[s.key].deliverables);
      expect(new Set(s.details).size).toBe(6);
      expect(servicePages[s.key].deliverables.length).toBeGreaterThan(0);
      expectUnique(servicePages[s.key].deliverables, (d) => d);
      expectSvg(s.icon, 48, 48);
    }
  });
});

describe("projects", () => {
  it("have unique ids fit for a URL, text, technologies, a live site, and a repository link where one is given; the home page features some of them, each once", () => {
    expectUnique(projects, (p) => p.id);
    for (const p of projects) {
      expect(p.id).toMatch(slug);
      expectText(p.title, p.description, ...p.technologies);
      expect(p.technologies.length).toBeGreaterThan(0);
      expectUnique(p.technologies, (t) => t);
      expect(p.liveUrl).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]{2,}(?:\/\S*)?$/);
      if (p.githubUrl !== undefined) expect(p.githubUrl).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
    }
    expect(featuredProjects.length).toBeGreaterThan(0);
    expectUnique(featuredProjects, (p) => p.id);
    for (const p of featuredProjects) expect(projects).toContain(p);
  });

  it("the filter offers the product's choices, no category's page is empty, and an unknown value is all", () => {
    expect(projectCategories.map((c) => c.label)).toEqual(["All", "Software Development", "Mobile Development", "AI Solutions"]);
    const categories: string[] = projectCategories.map((c) => c.value);
    for (const p of projects) expect(categories).toContain(p.category);
    for (const value of categories) expect(filterProjects(value).projects.length, value).toBeGreaterThan(0);
    expect(filterProjects("ai")).toEqual({ category: "ai", projects: projects.filter((p) => p.category === "ai") });
    for (const value of ["bogus", null, "", "all", "AI"]) expect(filterProjects(value)).toEqual({ category: "all", projects });
  });
});

describe("the agency and its people", () => {
  it("the hero shows the product's three claims and text; the story, values, five-star testimonials (docs/product.md) and team have theirs, each name once", () => {
    expect(claims.map((c) => `${c.value} ${c.label}`)).toEqual(["10+ Projects completed", "80% Client satisfaction", "2+ Years experience"]);
    expect(claims.map((c) => Object.keys(c).length)).toEqual([2, 2, 2]);
    expectText(hero.eyebrow, hero.heading, hero.lead, story.heading, story.lead, ...story.paragraphs);
    expect([values.length, testimonials.length, team.length].map((n) => n > 0)).toEqual([true, true, true]);
    for (const v of values) expectText(v.title, v.description);
    for (const m of team) expectText(m.name, m.position, m.description);
    for (const t of testimonials) expectText(t.name, t.position, t.content);
    for (const t of testimonials) expect(t.rating).toBe(5);
    expectUnique(team, (m) => m.name);
    expectUnique(values, (v) => v.title);
  });

  it("claims no more years than the hero's 'Years experience' (2+), for the agency or its people", () => {
    const claimed = parseInt(claims.find((c) => c.label === "Years experience")!.value, 10);
    const words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    const number = (n: string) =>
      ({ fifteen: 15, twenty: 20 })[n.toLowerCase()] ?? (words.includes(n.toLowerCase()) ? words.indexOf(n.toLowerCase()) : Number(n));
    const copy = [hero.lead, story.lead, ...story.paragraphs, ...values.map((v) => v.description), ...team.map((m) => m.description)].join("\n");
    const years = [...copy.matchAll(/\b(\d+|[a-z]+)\+? (?:years|yrs)\b/gi)].map(([phrase, n]) => [phrase, number(n!)] as const);
    expect(years.filter(([, n]) => n > claimed)).toEqual([]);
    expect(new Date().getFullYear() - site.foundedYear).toBeGreaterThanOrEqual(claimed);
  });

  it("the site facts: a valid email on the site's own domain, a phone its tel: link dials, a country code, a canonical https origin", () => {
    expect(site.email).toMatch(/^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i);
    expect(site.phone).toMatch(/^\+27[\d ]{9,12}$/);
    expect(site.phoneHref).toMatch(/^tel:\+27\d{9}$/);
    expect(site.phoneHref.slice(4)).toBe(site.phone.replace(/\s/g, ""));
    expect(site.url).toMatch(/^https:\/\/[a-z0-9.-]+\.co\.za$/);
    expect(site.email.endsWith(new URL(site.url).hostname.replace(/^www\./, ""))).toBe(true);
    expect(site.address.countryCode).toMatch(/^[A-Z]{2}$/);
    expect(site.social.url).toMatch(/^https:\/\//);
  });
});

describe("privacy notice", () => {
  const facts = {
    web3forms: { formService: { provider: "web3forms", host: "api.web3forms.com", inbox: site.email }, retentionDays: 30 },
    formspree: { formService: { provider: "formspree", host: "formspree.io", inbox: site.email }, retentionDays: 7 },
    webhook: { formService: { provider: "webhook", host: "hooks.example.net", inbox: site.email }, retentionDays: 1 },
    outbox: { formService: null, retentionDays: 0 },
    zoho: { formService: { provider: "zoho-crm", host: "accounts.zoho.eu", inbox: site.email }, retentionDays: 30 },
  } satisfies Record<string, PrivacyFacts>;
  const { web3forms, formspree, webhook, outbox, zoho } = facts;
  const notice = (facts: PrivacyFacts) => JSON.stringify(privacy.sections(facts));
  const ask = (facts: PrivacyFacts) => privacy.sections(facts).find((s) => s.heading === "How to ask")!.paragraphs!;

  it("says, whatever the settings, what is collected, why, who receives it, where and how long it is kept, the visitor's rights and how to ask, and what is then found and deleted", () => {
    for (const each of Object.values(facts)) {
      const sections = privacy.sections(each);
      const headings = sections.map((s) => s.heading).join("\n");
      for (const topic of [/collect/i, /why/i, /who receives/i, /where .*how long/i, /rights/i]) expect(headings).toMatch(topic);
      for (const s of sections) expectText(s.heading, ...(s.paragraphs ?? []), ...(s.items ?? []));
      expect(notice(each)).toContain("Information Regulator");
      const text = ask(each).join("\n");
      expect(text).toContain(
        `Email our information officer at ${site.informationOfficer.email} with the email address or phone number you gave us, or your request’s reference`,
      );
      expect(text).toContain("each request and message you sent, whether or not it has reached us yet");
      expect(text).toContain("delete all of it from our server, even what it had not yet passed on to us.");
      expect(text).toContain(`deleted on their own, at most ${DRAFT_LIFETIME_MINUTES} minutes after your last step`);
    }
  });

  it("names the form service the server delivers to, the retention it is set to, and whose copy is deleted too", () => {
    expect(notice(web3forms)).toContain(`our form service, Web3Forms, which emails it to our inbox, ${site.email}`);
    expect(notice(web3forms)).toContain("then kept for 30 days");
    expect(notice(web3forms)).toMatch(/refuses a message, it stays on our server until/);
    expect(notice(formspree)).toContain("our form service, Formspree,");
    expect(notice(formspree)).toContain("then kept for 7 days");
    expect(notice(webhook)).toContain("our form service at hooks.example.net,");
    expect(notice(webhook)).toContain("then kept for 1 day ");
    for (const each of [formspree, webhook]) expect(notice(each)).not.toContain("Web3Forms");
    expect(notice(webhook)).not.toMatch(/Formspree|email inbox/);
    expect(notice(zoho)).toContain("passes it to Zoho CRM, the service that keeps it as a lead in our customer records");
    expect(notice(zoho)).toContain("In our customer records in Zoho CRM,");
    expect(notice(zoho)).not.toMatch(/Web3Forms|Formspree|email inbox/);
    // No form service: every form stays on this server; no service, no retention after a delivery.
    expect(notice(outbox)).not.toMatch(/form service|Web3Forms|Formspree|0 days/);
    expect(notice(outbox)).toContain("our server stores it, and our team reads it there");
    expect([web3forms, formspree, webhook, zoho, outbox].map((each) => ask(each)[1])).toEqual([
      expect.stringContaining("We also delete the copy Web3Forms emailed to our inbox."),
      expect.stringContaining("We also delete the copy Formspree keeps among our form’s messages and emailed to our inbox."),
      expect.stringContaining("We also delete the copy our form service at hooks.example.net passed on to us."),
      expect.stringContaining("We also delete the lead it became in our customer records in Zoho CRM."),
      expect.stringContaining("Our server is the only place it is kept."),
    ]);
  });

  it("says, only with a booking page, that booking a call happens on that page, which receives the reference and what is typed there", () => {
    for (const each of [web3forms, outbox]) {
      const booked = notice({ ...each, booking: "cal.com" });
      for (const words of [/book a call/i, /cal\.com/, /reference/]) expect(booked).toMatch(words);
      expect(notice(each)).not.toMatch(/book/i);
    }
  });

  it("says in plain sentences what the visit cookie is, what it opens and for how long", () => {
    const cookie = privacy
      .sections(outbox)
      .flatMap((s) => s.items ?? [])
      .find((item) => item.includes("cookie"))!;
    expect(cookie).toContain("named “visit” (“__Host-visit” over a secure connection)");
    // Each as a whole clause (it once read "…and once you send the calculator your request’s reference, choices and estimate, again.").
    expect(cookie).toContain(
      "so that only your browser can open those answers, and see again what it sent: your request’s reference, choices and estimate, or your message’s reference.",
    );
    expect(cookie).toContain(`expires ${DRAFT_LIFETIME_MINUTES} minutes after your last step`);
  });

  it("says a request carries where the visit came from, by the funnel's own words, and that click identifiers are never kept", () => {
    const [collected, counted] = privacy.sections(outbox);
    expect(collected!.items!.join("\n")).toContain("With either form: where your visit came from, in the words we count it by (below)");
    expect(collected!.items!.join("\n")).toContain("(gclid, fbclid, msclkid) are never kept");
    expect(counted!.paragraphs!.join("\n")).toMatch(
      /a campaign we named in the link you followed .* the kind of site that linked to ours .* or that you came directly\. Any other link counts as “other”/,
    );
  });

  it("names an information officer with a working email and phone", () => {
    const officer = site.informationOfficer;
    expectText(officer.name);
    expect(officer.email).toMatch(/^[^\s@]+@kopanodigital\.co\.za$/);
    expect(officer.phoneHref.slice(4)).toBe(officer.phone.replace(/\s/g, ""));
  });
});

describe("images", () => {
  const images = (kind: readonly { image: Image }[]) => kind.map((x) => x.image);

  it("every referenced image has alt text and exists under public/ at its declared size; images of one kind share one size, so cards line up", () => {
    for (const image of [hero.visual, ...images(projects), ...images(testimonials), ...images(team)]) {
      expect(image.alt.trim().length).toBeGreaterThan(0);
      expectSvg(image.src, image.width, image.height);
    }
    for (const kind of [projects, testimonials, team]) expect(new Set(images(kind).map((x) => `${x.width}x${x.height}`)).size).toBe(1);
  });

  it("project illustrations are drawn on dark grounds, so none is a light panel on the dark scheme's cards", () => {
    const luminance = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    for (const { image } of projects) {
      const svg = readFileSync(`${publicDir}${image.src}`, "utf8");
      // The ground: covering the picture and four of its heights above and below (a card at rest shows a taller tile: app.css, "Portfolio").
      const ground = new RegExp(`<rect y="-${4 * image.height}" width="${image.width}" height="${9 * image.height}" fill="(#[0-9a-f]{6})"`, "i").exec(svg)?.[1];
      expect(ground, image.src).toBeDefined();
      expect(1.05 / (luminance(ground!) + 0.05), `${image.src}: white against its ground ${ground}`).toBeGreaterThanOrEqual(3);
    }
  });
});

describe("the words", () => {
  it("of messages are those docs/product.md's table of what the visitor is told gives, each of them", () => {
    const product = readFileSync(fileURLToPath(new URL("../../docs/product.md", import.meta.url)), "utf8");
    const told = product.slice(product.indexOf("## What the visitor is told"), product.indexOf("## A lead's path"));
    for (const [name, text] of Object.entries(messages)) expect(told, name).toContain(`| ${text}`);
  });

  it("use typographic quotes and apostrophes (“ ” ‘ ’), never straight ones, in every text under app/content", async () => {
    const dir = fileURLToPath(new URL(".", import.meta.url));
    const texts: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === "string") texts.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object") Object.values(value).forEach(walk);
    };
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts")))
      walk(Object.values(await import(pathToFileURL(`${dir}${file}`).href)));
    for (const provider of ["web3forms", "formspree", "webhook", "zoho-crm"] as const)
      walk(privacy.sections({ formService: { provider, host: "forms.example.net", inbox: site.email }, retentionDays: 30 }));
    walk(privacy.sections({ formService: null, retentionDays: 30 }));
    expect(texts.length).toBeGreaterThan(100);
    expect(texts.filter((t) => /['"]/.test(t))).toEqual([]);
  });
});
