import { Link } from "@remix-run/react";
import { useEffect, useRef, type ReactNode } from "react";
import { site } from "~/content/site";

function ErrorPage({ eyebrow, title, children, withServices = false }: { eyebrow: string; title: string; children: ReactNode; withServices?: boolean }) {
  // An error can replace the page where the visitor was, far down (a refused form post): bring
  // its heading into view, and to screen readers.
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="container not-found" aria-labelledby="error-title">
      <p className="eyebrow">{eyebrow}</p>
      <h1 id="error-title" ref={heading} tabIndex={-1}>
        {title}
      </h1>
      <p className="lead">{children}</p>
      <div className="btn-row">
        <Link className="btn" to="/">
          Go to the Home Page
        </Link>{" "}
        {withServices ? (
          <Link className="btn btn--ghost" to="/services">
            See Our Services
          </Link>
        ) : null}
      </div>
    </section>
  );
}

export function NotFound() {
  return (
    <ErrorPage eyebrow="Error 404" title="We can’t find that page" withServices>
      The link may be old, or the address mistyped. Here is where you can go instead.
    </ErrorPage>
  );
}

/** A 4xx other than 404, e.g. a refused post: `message` is the server's own fixed text. */
export function RequestRefused({ status, message }: { status: number; message: string }) {
  return (
    <ErrorPage eyebrow={`Error ${status}`} title="We couldn’t accept that request">
      {message}
    </ErrorPage>
  );
}

export function ServerError() {
  return (
    <ErrorPage eyebrow="Something went wrong" title="Sorry, this page didn’t load">
      Please try again in a moment. If it keeps happening, email us at <a href={`mailto:${site.email}`}>{site.email}</a>.
    </ErrorPage>
  );
}
