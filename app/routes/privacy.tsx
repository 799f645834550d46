import { json, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { PageHeader } from "~/components/page-header";
import { privacy } from "~/content/privacy";
import { site } from "~/content/site";
import { seo } from "~/utils/seo";

export const meta: MetaFunction = () =>
  seo({
    title: "Privacy notice",
    description: `What ${site.name} collects through this website’s forms, why, where it is kept and for how long, who receives it, and your rights under POPIA.`,
    path: "/privacy",
  });

/** The server's settings the notice describes: the same for every visitor, so the page stays cacheable. */
export const loader = ({ context }: LoaderFunctionArgs) => json(context.privacy);

export default function PrivacyPage() {
  const facts = useLoaderData<typeof loader>();
  const officer = site.informationOfficer;
  return (
    <>
      <PageHeader eyebrow="Privacy" title={privacy.title}>
        {privacy.lead}
      </PageHeader>
      <section className="section" aria-labelledby="privacy-notice">
        <div className="container prose">
          <h2 id="privacy-notice" className="visually-hidden">
            The notice
          </h2>
          {privacy.sections(facts).map((section) => (
            <div key={section.heading}>
              <h2 id={slug(section.heading)}>{section.heading}</h2>
              {section.paragraphs?.map((p) => (
                <p key={p}>{p}</p>
              ))}
              {section.items ? (
                <ul>
                  {section.items.map((item) => (
                    <li key={item}>{item}</li>
                  ))}
                </ul>
              ) : null}
            </div>
          ))}
          <div>
            <h2 id="officer">{privacy.officer.heading}</h2>
            <p>{privacy.officer.intro}</p>
            <address>
              {officer.name}, Information Officer, {site.name}
              <br />
              Email: <a href={`mailto:${officer.email}`}>{officer.email}</a>
              <br />
              Phone: <a href={officer.phoneHref}>{officer.phone}</a>
              <br />
              {site.address.city}, {site.address.country}
            </address>
          </div>
          <p className="muted">Last updated {privacy.updated}.</p>
        </div>
      </section>
    </>
  );
}

const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z]+/g, "-")
    .replace(/-$/, "");
