import type { Project } from "~/content/types";
import { projectCategories } from "~/content/projects";

/**
 * A portfolio card: its category and title, its picture, its details (description, tags, links).
 * The details are revealed on hover and on focus within it where the device can hover, the
 * picture filling their place until then, and shown always on touch screens: CSS alone (app.css,
 * "Portfolio"), within the card's own size, so the grid never moves. Each link's accessible name starts with its
 * visible text (WCAG 2.5.3), then says which project.
 */
export function ProjectCard({ project }: { project: Project }) {
  const category = projectCategories.find((c) => c.value === project.category)?.label;
  return (
    <article className="project-card" aria-labelledby={`project-${project.id}`}>
      <div className="project-head">
        <p className="project-category">{category}</p>
        <h3 id={`project-${project.id}`}>{project.title}</h3>
      </div>
      {/* Not lazy: each picture is a 2 KB drawing, and a lazy one was a blank box until scrolled near (with JavaScript on). */}
      <img src={project.image.src} alt={project.image.alt} width={project.image.width} height={project.image.height} decoding="async" />
      <div className="project-details">
        <p>{project.description}</p>
        <ul className="tags" aria-label="Technologies">
          {project.technologies.map((t) => (
            <li key={t}>{t}</li>
          ))}
        </ul>
        <p className="project-links">
          <a href={project.liveUrl} rel="noopener">
            Live site<span className="visually-hidden"> of {project.title}</span>
          </a>{" "}
          {project.githubUrl ? (
            <a href={project.githubUrl} rel="noopener">
              Code repository<span className="visually-hidden"> of {project.title}</span>
            </a>
          ) : null}
        </p>
      </div>
    </article>
  );
}
