import { Link } from "@remix-run/react";
import { site } from "~/content/site";

export function NotFound() {
  return (
    <section className="container not-found" aria-labelledby="error-title">
      <p className="eyebrow">Error 404</p>
      <h1 id="error-title">We can’t find that page</h1>
      <p className="lead">The link may be old, or the address mistyped. Here is where you can go instead.</p>
      <div className="btn-row">
        <Link className="btn" to="/">
          Go to the home page
        </Link>
        <Link className="btn btn--ghost" to="/services">
          See our services
        </Link>
      </div>
    </section>
  );
}

/** A 4xx other than 404, e.g. a refused post: `message` is the server's own fixed text. */
export function RequestRefused({ status, message }: { status: number; message: string }) {
  return (
    <section className="container not-found" aria-labelledby="error-title">
      <p className="eyebrow">Error {status}</p>
      <h1 id="error-title">We couldn’t accept that request</h1>
      <p className="lead">{message}</p>
      <div className="btn-row">
        <Link className="btn" to="/">
          Go to the home page
        </Link>
      </div>
    </section>
  );
}

export function ServerError() {
  return (
    <section className="container not-found" aria-labelledby="error-title">
      <p className="eyebrow">Something went wrong</p>
      <h1 id="error-title">Sorry, this page didn’t load</h1>
      <p className="lead">
        Please try again in a moment. If it keeps happening, email us at <a href={`mailto:${site.email}`}>{site.email}</a>.
      </p>
      <div className="btn-row">
        <Link className="btn" to="/">
          Go to the home page
        </Link>
      </div>
    </section>
  );
}
