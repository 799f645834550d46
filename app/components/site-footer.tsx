import { Link } from "@remix-run/react";
import { services } from "~/content/services";
import { site } from "~/content/site";
import { ContactDetails } from "./contact-details";

export function SiteFooter() {
  const year = new Date().getFullYear();
  return (
    <footer className="site-footer">
      <div className="container">
        <div className="footer-grid">
          {/* One paragraph: the name styled large is not a heading of its own. */}
          <p className="footer-brand">
            <span className="brand">{site.name}</span> {site.tagline}
          </p>
          <nav aria-labelledby="footer-services">
            <h2 id="footer-services">Services</h2>
            <ul>
              {services.map((service) => (
                <li key={service.key}>
                  <Link to={`/services#${service.slug}`}>{service.name}</Link>
                </li>
              ))}
            </ul>
          </nav>
          <div>
            <h2>Contact</h2>
            <ContactDetails />
          </div>
          <div>
            <h2>Follow us</h2>
            <ul>
              <li>
                <a href={site.social.url} rel="me noopener">
                  {site.social.label}
                </a>
              </li>
            </ul>
          </div>
        </div>
        <p className="footer-bottom">
          © {year} {site.name}. All rights reserved. <Link to="/privacy">Privacy notice</Link>
        </p>
      </div>
    </footer>
  );
}
