import type { Testimonial } from "./types";

function personImage(slug: string, name: string): Testimonial["image"] {
  return { src: `/images/people/${slug}.svg`, alt: `Portrait of ${name}`, width: 96, height: 96 };
}

export const testimonials: readonly Testimonial[] = [
  {
    name: "Thandiwe Mokoena",
    position: "Operations Manager, FleetLine Logistics",
    image: personImage("thandiwe-mokoena", "Thandiwe Mokoena"),
    content:
      "Our drivers used to phone in every delivery and we reconciled the paperwork on Fridays. Now proof of delivery lands in the system with a photo and a signature, and month-end takes a morning instead of three days.",
    rating: 5,
  },
  {
    name: "Dr Ravi Naidoo",
    position: "Managing Partner, Medilink Clinics",
    image: personImage("ravi-naidoo", "Dr Ravi Naidoo"),
    content:
      "The booking app was live in all four clinics within three months. Fewer patients miss appointments since the SMS reminders went in, and the team explained every decision to us in plain language.",
    rating: 5,
  },
  {
    name: "Sarah van der Merwe",
    position: "Director, Van der Merwe & Associates",
    image: personImage("sarah-van-der-merwe", "Sarah van der Merwe"),
    content:
      "We were sceptical about AI, so Kopano started with a two-week pilot on a few hundred of our own invoices. Most supplier invoices are now captured without anyone typing, and my staff check the exceptions instead of doing data entry.",
    rating: 5,
  },
];
