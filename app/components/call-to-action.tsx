import { Link } from "@remix-run/react";

/** The closing call to action. `second` is its other link: /work by default, another page on /work. */
export function CallToAction({ second = { to: "/work", label: "View Our Work" } }: { second?: { to: string; label: string } }) {
  return (
    <section className="section" aria-labelledby="cta-title">
      <div className="container cta">
        <h2 id="cta-title">Know what your project will cost before we talk</h2>
        <p>Answer five quick questions and get an estimate in under a minute. No obligation, and a real person replies within one business day.</p>
        <div className="btn-row">
          <Link className="btn btn--light" to="/#wizard">
            Estimate My Project
          </Link>{" "}
          <Link className="btn btn--outline-light" to={second.to}>
            {second.label}
          </Link>
        </div>
      </div>
    </section>
  );
}
