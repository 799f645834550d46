import { Link } from "@remix-run/react";
import { claims, hero } from "~/content/claims";

/**
 * The <img>'s own source, for narrow screens, where its <picture> is not shown at all (app.css):
 * an empty data URL, which costs no request and, unlike a 1×1 GIF's 70 incompressible bytes, next
 * to nothing in the page's script (perf/budgets.json).
 */
const PLACEHOLDER = "data:,";

export function Hero() {
  return (
    <section className="hero" aria-labelledby="hero-title">
      <div className="container hero-grid">
        <div>
          <p className="eyebrow">{hero.eyebrow}</p>
          <h1 id="hero-title">{hero.heading}</h1>
          <p className="lead">{hero.lead}</p>
          <div className="btn-row">
            <Link className="btn btn--light" to="/#wizard">
              Get Started
            </Link>{" "}
            {/* A space between the links: a text browser (lynx, w3m) runs adjacent links together. */}
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
        {/* Wide screens only: below 64rem the source does not match, so phones fetch only the empty
            placeholder (lazy loading would not do: browsers load everything when scripting is off).
            Sized, so nothing shifts when it arrives. The example opens its estimate's page, which
            starts a request with its answers. */}
        <Link className="hero-card" to={hero.visual.href}>
          <picture>
            <source media="(min-width: 64rem)" srcSet={hero.visual.src} />
            <img className="hero-visual" src={PLACEHOLDER} alt={hero.visual.alt} width={hero.visual.width} height={hero.visual.height} decoding="async" />
          </picture>
        </Link>
      </div>
    </section>
  );
}
