import type { Value } from "./types";
import { site } from "./site";

export const story = {
  heading: "Why we started Kopano",
  lead: "A small Johannesburg team that builds software, grows search traffic, automates routine work with AI and sets up Zoho, with the same people from the first workshop to launch.",
  paragraphs: [
    `${site.name} started in Johannesburg in ${site.foundedYear} with a simple observation: small and mid-sized businesses were paying for software, marketing and CRM set-ups that never quite fitted how they worked. Kopano means “coming together” in Sesotho, and that is how we work: alongside your team, not at arm’s length.`,
    "Since then we have completed more than ten projects for logistics companies, clinics, retailers, property managers and accounting firms across Gauteng. Some were new builds; others were rescues of systems that had stalled.",
    "We stay deliberately small so that the people you meet in the first workshop are the people who do the work. We quote clearly, report in plain language and measure ourselves by what changes in your business.",
  ],
} as const satisfies { heading: string; lead: string; paragraphs: readonly [string, string, string] };

export const values: readonly Value[] = [
  {
    title: "Plain talk",
    description: "Clear quotes, honest timelines and no jargon. If something is not worth building, we say so before you pay for it.",
  },
  {
    title: "Measure what matters",
    description: "We agree up front how success will be measured, whether hours saved, enquiries or sales, and report against it.",
  },
  {
    title: "Built to hand over",
    description: "Tested code, documented set-ups and training for your staff, so you are never locked in to us.",
  },
  {
    title: "Local and accountable",
    description: "We are based in Johannesburg, work in your time zone and understand South African realities, from load-shedding to POPIA.",
  },
];
