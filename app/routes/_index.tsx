import type { MetaFunction } from "@remix-run/node";
import { Hero } from "~/components/hero";
import { ServiceTabs } from "~/components/service-tabs";
import { seo } from "~/utils/seo";

export const meta: MetaFunction = () =>
  seo({
    title: "Software, SEO, AI and Zoho for South African businesses",
    description: "A Johannesburg digital agency building custom software, mobile apps, SEO and AI solutions and Zoho systems. Get a cost estimate in under a minute.",
    path: "/",
  });

export default function Home() {
  return (
    <>
      <Hero />
      <section id="services" className="section" aria-labelledby="services-title">
        <div className="container">
          <div className="section-head">
            <p className="eyebrow">What we do</p>
            <h2 id="services-title">Services built around your business</h2>
          </div>
          <ServiceTabs />
        </div>
      </section>
      <section id="calculator" className="section section--alt" aria-labelledby="calculator-title">
        <div className="container">
          <div className="section-head">
            <p className="eyebrow">Cost calculator</p>
            <h2 id="calculator-title">Estimate your project</h2>
          </div>
        </div>
      </section>
      <section id="contact" className="section" aria-labelledby="contact-title">
        <div className="container">
          <div className="section-head">
            <p className="eyebrow">Contact</p>
            <h2 id="contact-title" tabIndex={-1}>
              Let’s talk about your project
            </h2>
          </div>
        </div>
      </section>
    </>
  );
}
