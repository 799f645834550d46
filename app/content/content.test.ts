import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { story, values } from "./about";
import { claims, hero } from "./claims";
import { LEAD_RETENTION_DAYS, privacy } from "./privacy";
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
  it("are the spec's four tabs in order", () => {
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

  it("the filter offers the spec's choices, and no category's page is empty", () => {
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

  it("shows the spec's three claims, and a hero with text", () => {
    expect(claims).toEqual([
      { value: "10+", label: "Projects completed" },
      { value: "80%", label: "Client satisfaction" },
      { value: "2+", label: "Years experience" },
    ]);
    expectText(hero.eyebrow, hero.heading, hero.lead);
  });
});

describe("privacy notice", () => {
  const text = JSON.stringify(privacy);
  it("says what is collected, why, who receives it, where and how long it is kept, and the visitor's rights", () => {
    const headings = privacy.sections.map((s) => s.heading).join("\n");
    for (const topic of [/collect/i, /why/i, /who receives/i, /where .*how long/i, /rights/i]) expect(headings).toMatch(topic);
    for (const s of privacy.sections) expectText(s.heading, ...(s.paragraphs ?? []), ...(s.items ?? []));
    expect(text).toContain("Web3Forms");
    expect(text).toContain(`${LEAD_RETENTION_DAYS} days`);
    expect(text).toMatch(/refuses a message, it stays on our server until/);
    expect(text).toContain("Information Regulator");
  });

  it("names an information officer with a working email and phone", () => {
    const officer = site.informationOfficer;
    expectText(officer.name);
    expect(officer.email).toMatch(/^[^\s@]+@kopanodigital\.co\.za$/);
    expect(officer.phoneHref.slice(4)).toBe(officer.phone.replace(/\s/g, ""));
  });
});

describe("people and about", () => {
  it("testimonials are five-star (SPEC.md section 3), with a name, position and words", () => {
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
  it("uses SPEC.md's exact words for the calculator's outcome (the end-to-end tests import these)", () => {
    expect(messages.calculatorSent).toBe("Thank you! We will contact you shortly.");
    expect(messages.calculatorFailed).toBe("There was an error submitting your request. Please try again.");
  });
});
