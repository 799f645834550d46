import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import type { Choices } from "~/calculator/choices";
import { loadEstimate } from "~/calculator/estimate-page.server";
import { COMPLEXITIES, estimate, estimateParts, formatUsd, optionOf, SERVICES, TIMEFRAMES } from "~/calculator/pricing";
import Breakdown from "~/calculator/breakdown";
import { InRand, StepButton } from "~/calculator/estimate-this";
import { SENT_KEY } from "~/calculator/session";
import { resetState } from "~/calculator/state";
import { ContactDetails } from "~/components/contact-details";
import { estimateText as text } from "~/content/estimate";
import { site } from "~/content/site";
import { kept } from "~/forms/tab-storage";
import estimateStyles from "~/styles/estimate.css";
import { pageTitle, seo } from "~/utils/seo";

/**
 * An estimate of its own (decision 0024): the three choices in the address and nothing else, so
 * the page is the same bytes for everyone who opens it, kept by the server's page cache and any CDN
 * (app/page-variants.server.ts lists the values).
 */
export function loader({ request, context }: LoaderFunctionArgs) {
  return loadEstimate(request, context);
}

export const links = () => [{ rel: "stylesheet", href: estimateStyles }];

/** "Software Development, urgent, complex": the short words a chat preview has room for. */
const inBrief = ({ service, timeframe, complexity }: Choices) =>
  [
    optionOf(SERVICES, service).label,
    ...[optionOf(TIMEFRAMES, timeframe), optionOf(COMPLEXITIES, complexity)].map((o) => o.label.split(" (")[0]!.toLowerCase()),
  ].join(", ");

/** Named by its figure, so a pasted link previews it; never indexed (every combination is a page). */
export const meta: MetaFunction<typeof loader> = ({ data }) => {
  if (!data) return [];
  const { choices } = data;
  const { base, factors, total } = estimateParts(choices);
  const title = `Estimate: ${formatUsd(total)} — ${inBrief(choices)}`;
  const sum = [formatUsd(base.amount), ...factors.map((f) => f.multiplier)].join(" × ");
  const description = `${[base.label, ...factors.map((f) => f.label)].join(", ")}: ${sum} = ${formatUsd(total)}. An estimate from ${site.name}’s cost calculator; a written quote follows a request.`;
  return [
    ...seo({ title, description, path: data.path }),
    { name: "robots", content: "noindex" },
    { name: "twitter:title", content: pageTitle(title) },
    { name: "twitter:description", content: description },
  ];
};

export default function EstimatePage() {
  const data = useLoaderData<typeof loader>();
  const { choices } = data;
  // The request this browser sent with these choices: its receipt's page (the server's), or this tab's record once hydrated
  // (useHydrated would cost the home page a script file of its own, shared with this page).
  const [inTab, setInTab] = useState<unknown>();
  useEffect(() => {
    const { estimate, reference } = kept(SENT_KEY);
    setInTab(typeof estimate === "string" && estimate.startsWith(`${data.path}&`) ? reference : undefined);
  }, [data.path]);
  const sent = data.sent ?? inTab;
  const total = estimate(choices);
  const answers = [
    ["Service", optionOf(SERVICES, choices.service).label],
    ["Timeframe", optionOf(TIMEFRAMES, choices.timeframe).label],
    ["Complexity", optionOf(COMPLEXITIES, choices.complexity).label],
  ] as const;
  return (
    <article className="container estimate-sheet" aria-labelledby="estimate-title">
      <header className="estimate-from">
        <p className="brand">{site.name}</p>
        <ContactDetails className="estimate-contact" labelled />
        <p className="estimate-site">{new URL(site.url).host}</p>
      </header>
      <p className="eyebrow">{text.eyebrow}</p>
      <h1 id="estimate-title">
        Estimate: <span className="estimate-figure">{formatUsd(total)}</span> <InRand usd={total} />
      </h1>
      <p className="lead">{text.lead}</p>
      {/* Where the sender looks first: this request is on its way (and no invitation to send it again). */}
      {typeof sent === "string" ? <p className="estimate-sent">{text.sent(sent)}</p> : null}
      <div className="estimate-grid">
        <section aria-labelledby="estimate-choices">
          <h2 id="estimate-choices">{text.choicesTitle}</h2>
          <dl className="estimate-answers">
            {answers.map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          <p className="muted">Prices as of {text.pricesAsOf}.</p>
        </section>
        <div>
          <Breakdown state={choices} />
        </div>
      </div>
      <div className="estimate-terms">
        {[text.covers, text.excludes].map((part) => (
          <section key={part.heading} aria-label={part.heading}>
            <h2>{part.heading}</h2>
            <ul>
              {part.items.map((item) => (
                <li key={item}>{item}</li>
              ))}
            </ul>
          </section>
        ))}
        <section aria-label={text.stands.heading}>
          <h2>{text.stands.heading}</h2>
          <p>{text.stands.text}</p>
        </section>
      </div>
      {/* The calculator at step 4, these three answers chosen: the description and details are left. */}
      {typeof sent === "string" ? null : (
        <div className="estimate-start">
          <StepButton state={{ ...resetState(), ...choices, step: 4 }} label={text.start} />
          <p className="muted">{text.startHint}</p>
        </div>
      )}
    </article>
  );
}
