import { Link } from "@remix-run/react";
import { featuredProjects } from "~/content/projects";
import { ProjectCard } from "./project-card";
import { Section } from "./section";

/** Proof on the home page: a few delivered projects, and the way to the rest. */
export function SelectedWork() {
  return (
    <Section titleId="selected-work-title" eyebrow="Our work" title="Systems our clients use every day">
      <div className="grid grid--3">
        {featuredProjects.map((project) => (
          <ProjectCard key={project.id} project={project} />
        ))}
      </div>
      <p className="section-more">
        <Link className="btn btn--ghost" to="/work">
          See All Our Work
        </Link>
      </p>
    </Section>
  );
}
