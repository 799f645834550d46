import type { ActionFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useSearchParams } from "@remix-run/react";
import { calculatorAction } from "~/calculator/action.server";
import { CalculatorWizard } from "~/calculator/calculator-wizard";
import { ContactDetails } from "~/components/contact-details";
import { ContactForm } from "~/contact/contact-form";
import { Hero } from "~/components/hero";
import { SelectedWork } from "~/components/selected-work";
import { ServiceTabs } from "~/components/service-tabs";
import { Testimonials } from "~/components/testimonials";
import { contactAction } from "~/contact/action.server";
import { pageHeaders } from "~/utils/cache-headers";
import { seo } from "~/utils/seo";
import { agencyJsonLd } from "~/utils/structured-data";

export const meta: MetaFunction = () => [
  ...seo({
    title: "Software, SEO, AI and Zoho for South African businesses",
    description: "A Johannesburg digital agency building custom software, mobile apps, SEO and AI solutions and Zoho systems. Get a cost estimate in under a minute.",
    path: "/",
  }),
  { "script:ld+json": agencyJsonLd() },
];

/** Both of the page's forms post here and say which they are in a hidden `formName` field. */
export async function action({ context }: ActionFunctionArgs) {
  const fields = context.form?.fields ?? {};
  switch (fields.formName) {
    case "calculator":
      return calculatorAction(fields, context);
    case "contact":
      return contactAction(fields, context);
    default:
      throw new Response("That form is not one of ours.", { status: 400 });
  }
}

export const headers = pageHeaders;

export default function Home() {
  const result = useActionData<typeof action>();
  const [params] = useSearchParams();
  const sent = params.get("sent");
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
      <Testimonials />
      <SelectedWork />
      <section id="calculator" className="section section--alt" aria-labelledby="calculator-title">
        <div className="container split">
          <div className="section-head">
            <p className="eyebrow">Cost calculator</p>
            <h2 id="calculator-title">Estimate your project</h2>
            <p className="lead">Five quick steps, an instant estimate in US dollars, and a written quote from us within one business day.</p>
            <ol className="steps-list">
              <li>Pick a service, a timeframe and how complex it is.</li>
              <li>Describe the project in a few sentences.</li>
              <li>Leave your details and we confirm the price in writing.</li>
            </ol>
          </div>
          <CalculatorWizard result={result?.form === "calculator" ? result : undefined} sent={sent === "calculator"} />
        </div>
      </section>
      <section id="contact" className="section" aria-labelledby="contact-title">
        <div className="container split">
          <div className="section-head">
            <p className="eyebrow">Contact</p>
            <h2 id="contact-title" tabIndex={-1}>
              Let’s talk about your project
            </h2>
            <p className="lead">Tell us what you are working on. We reply within one business day.</p>
            <ContactDetails className="contact-direct" labelled />
          </div>
          <ContactForm result={result?.form === "contact" ? result : undefined} sent={sent === "contact"} />
        </div>
      </section>
    </>
  );
}
