import type { MetaFunction } from "@remix-run/node";
import { Link, useLocation } from "@remix-run/react";
import { CallToAction } from "~/components/call-to-action";
import { PageHeader } from "~/components/page-header";
import { ProjectCard } from "~/components/project-card";
import { projectCategories } from "~/content/projects";
import { filterProjects } from "~/content/work";
import { seo } from "~/utils/seo";

export const meta: MetaFunction = () =>
  seo({
    title: "Our Work",
    description: "Selected software, mobile and AI projects we have delivered for businesses in Johannesburg and across South Africa.",
    path: "/work",
  });

/**
 * No loader on purpose: the filter lives in `?category=`, the server renders it for visitors
 * without JavaScript, and with JavaScript a filter click changes the URL without a network round trip.
 */
export default function WorkPage() {
  const { category, projects } = filterProjects(new URLSearchParams(useLocation().search).get("category"));
  return (
    <>
      <PageHeader eyebrow="Our Work" title="Projects we are proud of">
        Real systems in daily use: logistics platforms, clinic apps, retail storefronts and AI assistants for South African businesses.
      </PageHeader>
      <section className="section" aria-labelledby="projects-title">
        <div className="container">
          <h2 id="projects-title" className="visually-hidden">
            Projects
          </h2>
          <nav aria-label="Filter projects by category">
            <ul className="tablist filter" role="list">
              {projectCategories.map((c) => (
                <li key={c.value}>
                  <Link
                    className="tab"
                    to={c.value === "all" ? "/work" : `/work?category=${c.value}`}
                    aria-current={c.value === category ? "true" : undefined}
                    preventScrollReset
                  >
                    {c.label}
                  </Link>
                </li>
              ))}
            </ul>
          </nav>
          <p className="visually-hidden" role="status">
            {projects.length === 1 ? "1 project" : `${projects.length} projects`} shown
          </p>
          <div className="grid grid--3">
            {projects.map((project) => (
              <ProjectCard key={project.id} project={project} />
            ))}
          </div>
        </div>
      </section>
      {/* Not "View Our Work": this is that page. */}
      <CallToAction second={{ to: "/about", label: "Meet the Team" }} />
    </>
  );
}
