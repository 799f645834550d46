import type { MetaFunction } from "@remix-run/node";
import { EstimateThis } from "~/calculator/estimate-this";
import { CallToAction } from "~/components/call-to-action";
import { PageHeader } from "~/components/page-header";
import { Testimonials } from "~/components/testimonials";
import { servicePages } from "~/content/service-pages";
import { services } from "~/content/services";
import { seo } from "~/utils/seo";

export const meta: MetaFunction = () =>
  seo({
    title: "Services",
    description:
      "Custom software, SEO and digital marketing, AI solutions and Zoho implementations for South African businesses, built by a Johannesburg team.",
    path: "/services",
  });

export default function ServicesPage() {
  return (
    <>
      <PageHeader eyebrow="Services" title="What we build for you">
        Four practices, one accountable team. Every engagement starts with a fixed estimate and ends with software your people actually use.
      </PageHeader>
      {services.map((service, index) => (
        <section key={service.key} id={service.slug} className={`section${index % 2 ? " section--alt" : ""}`} aria-labelledby={`${service.slug}-title`}>
          {/* Two columns as tall as each other at 1280 px: the story and its button beside
              what we build (the home page's tab lists it) and what the client gets. */}
          <div className="container tabpanel service-detail">
            <div>
              <img className="service-icon" src={service.icon} alt="" width={48} height={48} />
              <h2 id={`${service.slug}-title`}>{service.name}</h2>
              <p className="lead">{service.description}</p>
              <p>{servicePages[service.key].longDescription}</p>
              <EstimateThis service={service.key} name={service.name} />
            </div>
            <div className="card">
              <h3>What we build</h3>
              <ul className="checklist checklist--2">
                {service.details.map((item) => (
                  <li key={item}>{item}</li>
                ))}
              </ul>
              <h3>What you get</h3>
              <ul className="checklist checklist--2">
                {servicePages[service.key].deliverables.map((item) => (
                  <li key={item}>{item}</li>
                ))}
              </ul>
            </div>
          </div>
        </section>
      ))}
      <Testimonials />
      <CallToAction />
    </>
  );
}
