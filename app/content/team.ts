import type { TeamMember } from "./types";

function portrait(slug: string, name: string): TeamMember["image"] {
  return { src: `/images/people/${slug}.svg`, alt: `Portrait of ${name}`, width: 240, height: 240 };
}

export const team: readonly TeamMember[] = [
  {
    name: "Sipho Dlamini",
    position: "Founder & Lead Developer",
    image: portrait("sipho-dlamini", "Sipho Dlamini"),
    description:
      "Before starting the agency, Sipho built logistics and banking systems for larger companies. He leads technical scoping and reviews every line that goes to production.",
  },
  {
    name: "Naledi Khumalo",
    position: "SEO & Digital Marketing Lead",
    image: portrait("naledi-khumalo", "Naledi Khumalo"),
    description:
      "Naledi runs search and paid campaigns for our clients and writes the monthly reports. She cares more about enquiries than rankings and will tell you which is which.",
  },
  {
    name: "Pieter Botha",
    position: "AI Engineer",
    image: portrait("pieter-botha", "Pieter Botha"),
    description:
      "Pieter builds our document extraction and chat assistants. He insists on testing every model against a client’s own data before anyone calls it finished.",
  },
  {
    name: "Aisha Patel",
    position: "Zoho Consultant",
    image: portrait("aisha-patel", "Aisha Patel"),
    description:
      "Aisha has set up Zoho CRM and Books for retailers, clinics and professional firms. She maps the process on a whiteboard first and configures the software second.",
  },
];
