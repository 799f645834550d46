import type { MetaFunction } from "@remix-run/node";
import { CallToAction } from "~/components/call-to-action";
import { PageHeader } from "~/components/page-header";
import { story, values } from "~/content/about";
import { team } from "~/content/team";
import { seo } from "~/utils/seo";

export const meta: MetaFunction = () =>
  seo({
    title: "About us",
    description: "A Johannesburg team of engineers, marketers and Zoho specialists. Our story, the values we work by, and the people you will work with.",
    path: "/about",
  });

export default function AboutPage() {
  return (
    <>
      <PageHeader eyebrow="About us" title={story.heading}>
        {story.lead}
      </PageHeader>
      <section className="section" aria-labelledby="story-title">
        <div className="container prose">
          <h2 id="story-title">Our story</h2>
          {story.paragraphs.map((p) => (
            <p key={p}>{p}</p>
          ))}
        </div>
      </section>
      {/* Section's markup (components/section.tsx) written out: imported here too, Section would
          become a script chunk of its own, one more on the home page, over its budget (perf/). */}
      <section className="section section--alt" aria-labelledby="values-title">
        <div className="container">
          <div className="section-head">
            <p className="eyebrow">Values</p>
            <h2 id="values-title">How we work</h2>
          </div>
          <div className="grid grid--4">
            {values.map((value) => (
              <div key={value.title} className="card">
                <h3>{value.title}</h3>
                <p className="muted">{value.description}</p>
              </div>
            ))}
          </div>
        </div>
      </section>
      <section className="section" aria-labelledby="team-title">
        <div className="container">
          <div className="section-head">
            <p className="eyebrow">Team</p>
            <h2 id="team-title">The people you will work with</h2>
          </div>
          <div className="grid grid--4">
            {team.map((member) => (
              <article key={member.name} className="card member">
                <img src={member.image.src} alt={member.image.alt} width={member.image.width} height={member.image.height} loading="lazy" />
                <h3>{member.name}</h3>
                <p className="member-role">{member.position}</p>
                <p className="muted">{member.description}</p>
              </article>
            ))}
          </div>
        </div>
      </section>
      <CallToAction />
    </>
  );
}
