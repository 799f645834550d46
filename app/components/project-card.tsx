import type { Project } from "~/content/types";
import { projectCategories } from "~/content/projects";

/** A portfolio card. Its details reveal on hover and keyboard focus, and always show on touch screens. */
export function ProjectCard({ project }: { project: Project }) {
  const category = projectCategories.find((c) => c.value === project.category)?.label;
  return (
    <article className="project-card" aria-labelledby={`project-${project.id}`}>
      <img src={project.image.src} alt={project.image.alt} width={project.image.width} height={project.image.height} loading="lazy" />
      <div className="project-body">
        <p className="project-category">{category}</p>
        <h3 id={`project-${project.id}`}>{project.title}</h3>
        <div className="project-details">
          <p>{project.description}</p>
          <ul className="tags" aria-label="Technologies">
            {project.technologies.map((t) => (
              <li key={t}>{t}</li>
            ))}
          </ul>
          <p className="project-links">
            <a href={project.liveUrl} rel="noopener" aria-label={`Visit the live site of ${project.title}`}>
              Live site
            </a>
            {project.githubUrl ? (
              <a href={project.githubUrl} rel="noopener" aria-label={`View the code of ${project.title}`}>
                Code repository
              </a>
            ) : null}
          </p>
        </div>
      </div>
    </article>
  );
}
