import { Link } from "@remix-run/react";
import { claims, hero } from "~/content/claims";

export function Hero() {
  return (
    <section className="hero" aria-labelledby="hero-title">
      <div className="container">
        <p className="eyebrow">{hero.eyebrow}</p>
        <h1 id="hero-title">{hero.heading}</h1>
        <p className="lead">{hero.lead}</p>
        <div className="btn-row">
          <Link className="btn btn--light" to="#calculator">
            Get Started
          </Link>
          <Link className="btn btn--outline-light" to="/work">
            View Our Work
          </Link>
        </div>
        <ul className="claims">
          {claims.map((claim) => (
            <li key={claim.label}>
              <span className="claim-value">{claim.value}</span> <span className="claim-label">{claim.label}</span>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}
