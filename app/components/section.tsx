import type { ReactNode } from "react";

/**
 * A page section under a small eyebrow and an h2 that labels it. `split` puts the head beside the
 * content (the calculator, the contact form); `intro` is more of the head, under the title.
 */
export function Section({
  id,
  titleId,
  eyebrow,
  title,
  alt = false,
  split = false,
  focusableTitle = false,
  intro,
  children,
}: {
  id?: string;
  /** The heading's id: the section's label, and an anchor. */
  titleId: string;
  eyebrow: string;
  title: ReactNode;
  /** The alternate background, for sections that follow one another. */
  alt?: boolean;
  split?: boolean;
  /** A heading that focus can be moved to (after a form is sent). */
  focusableTitle?: boolean;
  intro?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section id={id} className={alt ? "section section--alt" : "section"} aria-labelledby={titleId}>
      <div className={split ? "container split" : "container"}>
        <div className="section-head">
          <p className="eyebrow">{eyebrow}</p>
          <h2 id={titleId} tabIndex={focusableTitle ? -1 : undefined}>
            {title}
          </h2>
          {intro}
        </div>
        {children}
      </div>
    </section>
  );
}
