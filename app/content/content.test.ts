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

function rootSvgTag(svg: string): string {
  const match = /<svg\b[^>]*>/.exec(svg);
  if (!match) throw new Error("no <svg> root element");
  return match[0];
}

function attr(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
}

/** Reads a referenced SVG and checks it exists, is small, self-contained and sized as declared. */
function expectSvg(src: string, width: number, height: number): void {
  expect(src).toMatch(/^\/images\/[a-z0-9/-]+\.svg$/);
  const file = `${publicDir}${src}`;
  expect(existsSync(file), `${src} exists`).toBe(true);
  expect(statSync(file).size, `${src} stays small`).toBeLessThan(2.5 * 1024);
  const svg = readFileSync(file, "utf8");
  const tag = rootSvgTag(svg);
  expect(attr(tag, "width"), `${src} width`).toBe(String(width));
  expect(attr(tag, "height"), `${src} height`).toBe(String(height));
  expect(attr(tag, "viewBox"), `${src} viewBox`).toBeDefined();
  expect(svg, `${src} has no external references`).not.toMatch(/(?:href|src)="(?!#)|url\((?!#)|@import/);
}

function expectImage(image: Image): void {
  expect(image.alt.trim().length).toBeGreaterThan(0);
  expectSvg(image.src, image.width, image.height);
}

/** Every entry has a distinct value for `key`. */
function expectUnique<T>(items: readonly T[], key: (item: T) => string): void {
  const seen = items.map(key);
  expect(
    seen.filter((k, i) => seen.indexOf(k) !== i),
    "repeated",
  ).toEqual([]);
}

function expectText(...texts: string[]): void {
  for (const t of texts) expect(t.trim(), "empty text").not.toBe("");
}

const httpsUrl = /^https:\/\/[a-z0-9.-]+\.[a-z]{2,}(?:\/\S*)?$/;

describe("services", () => {
  it("are the four tabs in the product's order", () => {
    expect(services.map((s) => s.key)).toEqual(["softwareDev", "seo", "ai", "zoho"]);
  });

  it("each has a title, a description, six distinct details, deliverables and a long description", () => {
    for (const s of services) {
      expectText(s.title, s.description, ...s.details, servicePages[s.key].longDescription, ...servicePages[s.key].deliverables);
      expect(new Set(s.details).size).toBe(6);
      expect(servicePages[s.key].deliverables.length).toBeGreaterThan(0);
      expectUnique(servicePages[s.key].deliverables, (d) => d);
    }
  });

  it("have unique keys and unique slugs fit for an anchor", () => {
    expectUnique(services, (s) => s.key);
    expectUnique(services, (s) => s.slug);
    for (const s of services) expect(s.slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  });

  it("icons exist at 48x48", () => {
    for (const s of services) expectSvg(s.icon, 48, 48);
  });
});

describe("projects", () => {
  it("have unique ids fit for a URL, text, technologies and a live site", () => {
    expectUnique(projects, (p) => p.id);
    for (const p of projects) {
      expect(p.id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expectText(p.title, p.description, ...p.technologies);
      expect(p.technologies.length).toBeGreaterThan(0);
      expectUnique(p.technologies, (t) => t);
      expect(p.liveUrl).toMatch(httpsUrl);
    }
  });

  it("a code repository link, where a project has one, points at a repository", () => {
    for (const p of projects) if (p.githubUrl !== undefined) expect(p.githubUrl).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
  });

  it("the filter offers the product's choices, and no category's page is empty", () => {
    expect(projectCategories.map((c) => c.label)).toEqual(["All", "Software Development", "Mobile Development", "AI Solutions"]);
    const categories: string[] = projectCategories.map((c) => c.value);
    for (const p of projects) expect(categories).toContain(p.category);
    for (const value of categories) expect(filterProjects(value).projects.length, value).toBeGreaterThan(0);
  });

  it("filterProjects narrows to a category and treats unknown values as all", () => {
    const ai = filterProjects("ai");
    expect(ai.category).toBe("ai");
    expect(ai.projects).toEqual(projects.filter((p) => p.category === "ai"));

    for (const value of ["bogus", null, "", "all", "AI"]) {
      const result = filterProjects(value);
      expect(result.category).toBe("all");
      expect(result.projects).toEqual(projects);
    }
  });
});

describe("home page", () => {
  it("features projects that exist, each once", () => {
    expect(featuredProjects.length).toBeGreaterThan(0);
    expectUnique(featuredProjects, (p) => p.id);
    for (const p of featuredProjects) expect(projects).toContain(p);
  });

  it("shows the product's three claims, and a hero with text", () => {
    expect(claims).toEqual([
      { value: "10+", label: "Projects completed" },
      { value: "80%", label: "Client satisfaction" },
      { value: "2+", label: "Years experience" },
    ]);
    expectText(hero.eyebrow, hero.heading, hero.lead);
  });
});

describe("privacy notice", () => {
  const web3forms: PrivacyFacts = { formService: { provider: "web3forms", host: "api.web3forms.com", inbox: site.email }, retentionDays: 30 };
  const formspree: PrivacyFacts = { formService: { provider: "formspree", host: "formspree.io", inbox: site.email }, retentionDays: 7 };
  const webhook: PrivacyFacts = { formService: { provider: "webhook", host: "hooks.example.net", inbox: site.email }, retentionDays: 1 };
  const outbox: PrivacyFacts = { formService: null, retentionDays: 0 };
  const zoho: PrivacyFacts = { formService: { provider: "zoho-crm", host: "accounts.zoho.eu", inbox: site.email }, retentionDays: 30 };
  const notice = (facts: PrivacyFacts) => JSON.stringify(privacy.sections(facts));

  it("says what is collected, why, who receives it, where and how long it is kept, and the visitor's rights", () => {
    for (const facts of [web3forms, formspree, webhook, outbox, zoho]) {
      const sections = privacy.sections(facts);
      const headings = sections.map((s) => s.heading).join("\n");
      for (const topic of [/collect/i, /why/i, /who receives/i, /where .*how long/i, /rights/i]) expect(headings).toMatch(topic);
      for (const s of sections) expectText(s.heading, ...(s.paragraphs ?? []), ...(s.items ?? []));
      expect(notice(facts)).toContain("Information Regulator");
    }
  });

  it("names the form service the server delivers to and the retention it is set to, whatever the settings", () => {
    expect(notice(web3forms)).toContain(`our form service, Web3Forms, which emails it to our inbox, ${site.email}`);
    expect(notice(web3forms)).toContain("then kept for 30 days");
    expect(notice(web3forms)).toMatch(/refuses a message, it stays on our server until/);

    expect(notice(formspree)).toContain("our form service, Formspree,");
    expect(notice(formspree)).toContain("then kept for 7 days");
    expect(notice(webhook)).toContain("our form service at hooks.example.net,");
    expect(notice(webhook)).toContain("then kept for 1 day ");
    for (const facts of [formspree, webhook]) expect(notice(facts)).not.toContain("Web3Forms");
    expect(notice(webhook)).not.toMatch(/Formspree|email inbox/);

    expect(notice(zoho)).toContain("passes it to Zoho CRM, the service that keeps it as a lead in our customer records");
    expect(notice(zoho)).toContain("In our customer records in Zoho CRM,");
    expect(notice(zoho)).not.toMatch(/Web3Forms|Formspree|email inbox/);

    // No key: every form stays on this server; no service, no retention after a delivery.
    expect(notice(outbox)).not.toMatch(/form service|Web3Forms|Formspree|0 days/);
    expect(notice(outbox)).toContain("our server stores it, and our team reads it there");
  });

  it("says, only with a booking page, that booking a call happens on that page, which receives the reference and what is typed there", () => {
    for (const facts of [web3forms, outbox]) {
      const booked = notice({ ...facts, booking: "cal.com" });
      expect(booked).toMatch(/book a call/i);
      expect(booked).toContain("cal.com");
      expect(booked).toContain("reference");
      expect(notice(facts)).not.toMatch(/book/i);
    }
  });

  it("says in plain sentences what the visit cookie is, what it opens and for how long", () => {
    const cookie = privacy
      .sections(outbox)
      .flatMap((s) => s.items ?? [])
      .find((item) => item.includes("cookie"))!;
    expect(cookie).toContain("named “visit” (“__Host-visit” over a secure connection)");
    // What it lets the browser do, each as a whole clause (it once read "…and once you send the
    // calculator your request’s reference, choices and estimate, again.").
    expect(cookie).toContain(
      "so that only your browser can open those answers, and see again what it sent: your request’s reference, choices and estimate, or your message’s reference.",
    );
    expect(cookie).toContain(`expires ${DRAFT_LIFETIME_MINUTES} minutes after your last step`);
  });

  it("says how to ask for one's information or its deletion, what is then found and deleted, and that the form service's or CRM's copy is deleted too", () => {
    for (const facts of [web3forms, formspree, webhook, outbox, zoho]) {
      const ask = privacy.sections(facts).find((s) => s.heading === "How to ask")!;
      const text = ask.paragraphs!.join("\n");
      expect(text).toContain(
        `Email our information officer at ${site.informationOfficer.email} with the email address or phone number you gave us, or your request’s reference`,
      );
      expect(text).toContain("each request and message you sent, whether or not it has reached us yet");
      expect(text).toContain("delete all of it from our server, even what it had not yet passed on to us.");
      expect(text).toContain(`deleted on their own, at most ${DRAFT_LIFETIME_MINUTES} minutes after your last step`);
    }
    const copy = (facts: PrivacyFacts) => privacy.sections(facts).find((s) => s.heading === "How to ask")!.paragraphs![1];
    expect(copy(web3forms)).toContain("We also delete the copy Web3Forms emailed to our inbox.");
    expect(copy(formspree)).toContain("We also delete the copy Formspree keeps among our form’s messages and emailed to our inbox.");
    expect(copy(webhook)).toContain("We also delete the copy our form service at hooks.example.net passed on to us.");
    expect(copy(zoho)).toContain("We also delete the lead it became in our customer records in Zoho CRM.");
    expect(copy(outbox)).toContain("Our server is the only place it is kept.");
  });

  it("says a request carries where the visit came from, by the funnel's own words, and that click identifiers are never kept", () => {
    const collected = privacy.sections(outbox)[0]!.items!.join("\n");
    expect(collected).toContain("With either form: where your visit came from, in the words we count it by (below)");
    expect(collected).toContain("(gclid, fbclid, msclkid) are never kept");
    const counted = privacy.sections(outbox)[1]!.paragraphs!.join("\n");
    expect(counted).toMatch(
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

describe("people and about", () => {
  it("testimonials are five-star (docs/product.md), with a name, position and words", () => {
    expect(testimonials.length).toBeGreaterThan(0);
    for (const t of testimonials) {
      expect(t.rating).toBe(5);
      expectText(t.name, t.position, t.content);
    }
  });

  it("team members have a name, position and description, each name once", () => {
    expect(team.length).toBeGreaterThan(0);
    for (const m of team) expectText(m.name, m.position, m.description);
    expectUnique(team, (m) => m.name);
  });

  it("claims no more years than the hero's 'Years experience' (2+), for the agency or its people", () => {
    const claimed = parseInt(claims.find((c) => c.label === "Years experience")!.value, 10);
    const numbers: Record<string, number> = {
      one: 1,
      two: 2,
      three: 3,
      four: 4,
      five: 5,
      six: 6,
      seven: 7,
      eight: 8,
      nine: 9,
      ten: 10,
      eleven: 11,
      twelve: 12,
      fifteen: 15,
      twenty: 20,
    };
    const copy = [hero.lead, story.lead, ...story.paragraphs, ...values.map((v) => v.description), ...team.map((m) => m.description)].join("\n");
    const years = [...copy.matchAll(/\b(\d+|[a-z]+)\+? (?:years|yrs)\b/gi)].map(([phrase, n]) => [phrase, numbers[n!.toLowerCase()] ?? Number(n)] as const);
    expect(years.filter(([, n]) => n > claimed)).toEqual([]);
    expect(new Date().getFullYear() - site.foundedYear).toBeGreaterThanOrEqual(claimed);
  });

  it("the story and values have text", () => {
    expectText(story.heading, story.lead, ...story.paragraphs);
    expect(values.length).toBeGreaterThan(0);
    for (const v of values) expectText(v.title, v.description);
    expectUnique(values, (v) => v.title);
  });
});

describe("images", () => {
  it("every referenced image has alt text and exists under public/ at its declared size", () => {
    const images: Image[] = [hero.visual, ...projects.map((p) => p.image), ...testimonials.map((t) => t.image), ...team.map((m) => m.image)];
    for (const image of images) expectImage(image);
  });

  it("project illustrations are drawn on dark grounds, so none is a light panel on the dark scheme's cards", () => {
    const luminance = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    for (const { image } of projects) {
      const svg = readFileSync(`${publicDir}${image.src}`, "utf8");
      // The ground: the first shape, covering the whole picture and four of its heights above and
      // below it: a card at rest shows its drawing on a taller tile of this ground (app.css, "Portfolio").
      const ground = new RegExp(`<rect y="-${4 * image.height}" width="${image.width}" height="${9 * image.height}" fill="(#[0-9a-f]{6})"`, "i").exec(svg)?.[1];
      expect(ground, image.src).toBeDefined();
      expect(1.05 / (luminance(ground!) + 0.05), `${image.src}: white against its ground ${ground}`).toBeGreaterThanOrEqual(3);
    }
  });

  it("images of one kind share one size, so cards line up", () => {
    for (const kind of [projects, testimonials, team]) expect(new Set(kind.map((x) => `${x.image.width}x${x.image.height}`)).size).toBe(1);
  });
});

describe("site facts", () => {
  it("has a valid email, phone, country code and canonical origin", () => {
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

describe("messages", () => {
  it("are the words docs/product.md's table of what the visitor is told gives, each of them", () => {
    const product = readFileSync(fileURLToPath(new URL("../../docs/product.md", import.meta.url)), "utf8");
    const told = product.slice(product.indexOf("## What the visitor is told"), product.indexOf("## A lead's path"));
    for (const [name, text] of Object.entries(messages)) expect(told, name).toContain(`| ${text}`);
  });
});

describe("copy", () => {
  it("uses typographic quotes and apostrophes (“ ” ‘ ’), never straight ones, in every text under app/content", async () => {
    const dir = fileURLToPath(new URL(".", import.meta.url));
    const modules = readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
    const texts: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === "string") texts.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === "object") Object.values(value).forEach(walk);
    };
    for (const file of modules) walk(Object.values(await import(pathToFileURL(`${dir}${file}`).href)));
    for (const formService of [
      null,
      ...(["web3forms", "formspree", "webhook", "zoho-crm"] as const).map((provider) => ({ provider, host: "forms.example.net", inbox: site.email })),
    ]) {
      walk(privacy.sections({ formService, retentionDays: 30 }));
    }
    expect(texts.length).toBeGreaterThan(100);
    expect(texts.filter((t) => /['"]/.test(t))).toEqual([]);
  });
});
