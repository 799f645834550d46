import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { story, values } from "./about";
import { claims, hero } from "./claims";
import { LEAD_RETENTION_DAYS, privacy } from "./privacy";
import { messages } from "./messages";
import { featuredProjectIds, filterProjects, projectCategories, projects } from "./projects";
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

describe("services", () => {
  it("lists the four services in tab order", () => {
    expect(services.map((s) => s.key)).toEqual(["softwareDev", "seo", "ai", "zoho"]);
    expect(services.map((s) => s.name)).toEqual([
      "Software Development",
      "SEO & Digital Marketing",
      "AI Solutions",
      "Zoho Solutions",
    ]);
  });

  it("has six non-empty details, 4-5 deliverables and unique keys and slugs", () => {
    for (const s of services) {
      expect(s.details).toHaveLength(6);
      for (const d of s.details) expect(d.trim()).not.toBe("");
      expect(new Set(s.details).size).toBe(6);
      expect(servicePages[s.key].deliverables.length).toBeGreaterThanOrEqual(4);
      expect(servicePages[s.key].deliverables.length).toBeLessThanOrEqual(5);
      expect(servicePages[s.key].longDescription.length).toBeGreaterThan(100);
      expect(s.slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
      expect(s.icon).toBe(`/images/services/${s.slug}.svg`);
    }
    expect(new Set(services.map((s) => s.key)).size).toBe(services.length);
    expect(new Set(services.map((s) => s.slug)).size).toBe(services.length);
  });

  it("icons exist at 48x48", () => {
    for (const s of services) expectSvg(s.icon, 48, 48);
  });
});

describe("projects", () => {
  it("have unique ids and valid categories, two per category", () => {
    expect(projects).toHaveLength(6);
    expect(new Set(projects.map((p) => p.id)).size).toBe(projects.length);
    for (const category of ["software", "mobile", "ai"] as const) {
      expect(projects.filter((p) => p.category === category)).toHaveLength(2);
    }
    for (const p of projects) {
      expect(["software", "mobile", "ai"]).toContain(p.category);
      expect(p.technologies.length).toBeGreaterThanOrEqual(3);
      expect(p.technologies.length).toBeLessThanOrEqual(5);
      expect(p.liveUrl).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]{2,}(?:\/\S*)?$/);
      expect(p.image.src).toBe(`/images/work/${p.id}.svg`);
    }
  });

  it("exactly two have a code repository link", () => {
    const withRepo = projects.filter((p) => p.githubUrl !== undefined);
    expect(withRepo).toHaveLength(2);
    for (const p of withRepo) expect(p.githubUrl).toMatch(/^https:\/\/github\.com\/[\w.-]+\/[\w.-]+$/);
  });

  it("offers the four filter choices", () => {
    expect(projectCategories.map((c) => c.label)).toEqual([
      "All",
      "Software Development",
      "Mobile Development",
      "AI Solutions",
    ]);
  });

  it("filterProjects narrows to a category and treats unknown values as all", () => {
    const ai = filterProjects("ai");
    expect(ai.category).toBe("ai");
    expect(ai.projects.length).toBeGreaterThan(0);
    expect(ai.projects.every((p) => p.category === "ai")).toBe(true);

    for (const value of ["bogus", null, "", "all", "AI"]) {
      const result = filterProjects(value);
      expect(result.category).toBe("all");
      expect(result.projects).toEqual(projects);
    }
  });
});

describe("home page proof", () => {
  it("features three existing projects, one per category", () => {
    const featured = projects.filter((p) => featuredProjectIds.includes(p.id));
    expect(featured).toHaveLength(featuredProjectIds.length);
    expect(featured.map((p) => p.category).sort()).toEqual(["ai", "mobile", "software"]);
  });

  it("the hero's visual exists at its declared size", () => {
    expect(hero.visual.alt).toMatch(/estimate/);
    const svg = readFileSync(`${publicDir}${hero.visual.src}`, "utf8");
    expect(attr(rootSvgTag(svg), "width")).toBe(String(hero.visual.width));
    expect(attr(rootSvgTag(svg), "height")).toBe(String(hero.visual.height));
    expect(svg).not.toMatch(/(?:href|src)="(?!#)|url\((?!#)|@import/);
  });
});

describe("privacy notice", () => {
  const text = JSON.stringify(privacy);
  it("says what is collected, why, who receives it, where and how long it is kept, and the visitor's rights", () => {
    expect(privacy.sections.map((s) => s.heading)).toEqual([
      "What we collect",
      "What we do not collect",
      "Why we collect it",
      "Who receives it",
      "Where it is kept, and for how long",
      "Your rights",
    ]);
    expect(text).toContain("Web3Forms");
    expect(text).toContain(`${LEAD_RETENTION_DAYS} days`);
    expect(text).toMatch(/refuses a message, it stays on our server until/);
    expect(text).toContain("Information Regulator");
  });

  it("names an information officer with a working email and phone", () => {
    const officer = site.informationOfficer;
    expect(officer.name.trim()).not.toBe("");
    expect(officer.email).toMatch(/^[^\s@]+@kopanodigital\.co\.za$/);
    expect(officer.phoneHref.slice(4)).toBe(officer.phone.replace(/\s/g, ""));
  });
});

describe("claims and hero", () => {
  it("are exactly the three spec claims", () => {
    expect(claims).toEqual([
      { value: "10+", label: "Projects completed" },
      { value: "80%", label: "Client satisfaction" },
      { value: "2+", label: "Years experience" },
    ]);
    expect(hero.eyebrow.trim()).not.toBe("");
    expect(hero.heading.trim()).not.toBe("");
    expect(hero.lead.trim()).not.toBe("");
  });
});

describe("people and about", () => {
  it("has three five-star testimonials and four team members", () => {
    expect(testimonials).toHaveLength(3);
    for (const t of testimonials) expect(t.rating).toBe(5);
    expect(team).toHaveLength(4);
  });

  it("has a story of three paragraphs and four values", () => {
    expect(story.heading.trim()).not.toBe("");
    expect(story.lead.trim()).not.toBe("");
    expect(story.paragraphs).toHaveLength(3);
    expect(values).toHaveLength(4);
  });
});

describe("images", () => {
  it("every referenced image exists with matching size", () => {
    const images: Image[] = [
      ...projects.map((p) => p.image),
      ...testimonials.map((t) => t.image),
      ...team.map((m) => m.image),
    ];
    for (const t of testimonials) expect([t.image.width, t.image.height]).toEqual([96, 96]);
    for (const m of team) expect([m.image.width, m.image.height]).toEqual([240, 240]);
    for (const p of projects) expect([p.image.width, p.image.height]).toEqual([640, 400]);
    for (const image of images) expectImage(image);
  });
});

describe("site facts", () => {
  it("has a valid email, phone and canonical origin", () => {
    expect(site.email).toMatch(/^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i);
    expect(site.phone).toMatch(/^\+27[\d ]{9,12}$/);
    expect(site.phoneHref).toMatch(/^tel:\+27\d{9}$/);
    expect(site.phoneHref.slice(4)).toBe(site.phone.replace(/\s/g, ""));
    expect(site.url).toMatch(/^https:\/\/[a-z0-9.-]+\.co\.za$/);
    expect(site.email.endsWith(new URL(site.url).hostname.replace(/^www\./, ""))).toBe(true);
    expect(site.address).toEqual({ city: "Johannesburg", country: "South Africa" });
    expect(site.social.url).toMatch(/^https:\/\//);
  });
});

describe("messages", () => {
  it("uses SPEC.md's exact words for the calculator's outcome (the end-to-end tests import these)", () => {
    expect(messages.calculatorSent).toBe("Thank you! We will contact you shortly.");
    expect(messages.calculatorFailed).toBe("There was an error submitting your request. Please try again.");
  });
});
