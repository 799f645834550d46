import type { MetaFunction } from "@remix-run/node";
import { type ClientLoaderFunctionArgs, useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { CalculatorWizard } from "~/calculator/calculator-wizard";
import { DRAFT_PARAM } from "~/calculator/state";
import { EstimateThis } from "~/calculator/estimate-this";
import { ContactDetails } from "~/components/contact-details";
import { ContactForm } from "~/contact/contact-form";
import { Hero } from "~/components/hero";
import { Section } from "~/components/section";
import { SelectedWork } from "~/components/selected-work";
import { ServiceTabs } from "~/components/service-tabs";
import { Testimonials } from "~/components/testimonials";
import { sendOrKeep } from "~/forms/failed-send";
import { lazyChecks } from "~/forms/lazy-checks";
import { CONTACT_DRAFT_PARAM, RECEIPT_PARAM } from "~/forms/receipt";
import { pageHeaders } from "~/utils/cache-headers";
import type { action, loader } from "~/home.server";
import { seo } from "~/utils/seo";

export { action, loader } from "~/home.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  ...seo({
    title: "Software, SEO, AI and Zoho for South African businesses",
    description:
      "A Johannesburg digital agency building custom software, mobile apps, SEO and AI solutions and Zoho systems. Get a cost estimate in under a minute.",
    path: "/",
  }),
  // For search engines, in the server's page (a visit within the site has no need of it).
  ...(data && "jsonLd" in data ? [{ "script:ld+json": data.jsonLd }] : []),
];

/**
 * In the browser only those records need the server: visits to /, wizard steps with JavaScript and
 * tab changes cost no request (on a visitor's own record page a tab change asks for it again).
 */
export async function clientLoader({ request, serverLoader }: ClientLoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  if (![DRAFT_PARAM, RECEIPT_PARAM, CONTACT_DRAFT_PARAM].some((name) => params.has(name))) return { draft: null, receipt: null, contact: null };
  return serverLoader<typeof loader>();
}

/** With JavaScript: a send that never got the action's answer keeps its form (app/forms/failed-send.ts). */
export const clientAction = sendOrKeep<typeof action>;

export const headers = pageHeaders;

/** Both forms' rules, one module loaded when a visitor first reaches for either form (app/schema.ts). */
const checks = lazyChecks(() => import("~/schema"));

export default function Home() {
  const result = useActionData<typeof clientAction>();
  const { draft, receipt, contact } = useLoaderData<typeof clientLoader>();
  const sent = new URLSearchParams(useLocation().search).get("sent");
  return (
    <>
      <Hero />
      <Section id="services" titleId="services-title" eyebrow="What we do" title="Services built around your business">
        <ServiceTabs action={(service) => <EstimateThis service={service.key} name={service.name} />} />
      </Section>
      <Testimonials />
      <SelectedWork />
      <Section
        id="calculator"
        titleId="calculator-title"
        eyebrow="Cost calculator"
        title="Estimate your project"
        alt
        intro={<p className="lead">Five quick steps, an instant estimate in US dollars, and a written quote from us within one business day.</p>}
      >
        <CalculatorWizard
          result={result?.form === "calculator" ? result : undefined}
          draft={draft}
          sent={sent === "calculator" ? (receipt ?? {}) : null}
          checks={checks}
          reach={<ContactDetails labelled />}
        />
      </Section>
      <Section
        id="contact"
        titleId="contact-title"
        eyebrow="Contact"
        title="Let’s talk about your project"
        split
        focusableTitle
        intro={
          <>
            <p className="lead">Tell us what you are working on. We reply within one business day.</p>
            <ContactDetails className="contact-direct" labelled />
          </>
        }
      >
        <ContactForm
          result={result?.form === "contact" ? result : undefined}
          draft={contact}
          sent={sent === "contact" ? (receipt ?? {}) : null}
          checks={checks}
        />
      </Section>
    </>
  );
}
