import { Link } from "@remix-run/react";

export function CallToAction() {
  return (
    <section className="section" aria-labelledby="cta-title">
      <div className="container cta">
        <h2 id="cta-title">Know what your project will cost before we talk</h2>
        <p>Answer five quick questions and get an estimate in under a minute. No obligation, and a real person replies within one business day.</p>
        <div className="btn-row">
          <Link className="btn btn--light" to="/#calculator">
            Estimate my project
          </Link>
          <Link className="btn btn--outline-light" to="/work">
            View Our Work
          </Link>
        </div>
      </div>
    </section>
  );
}
