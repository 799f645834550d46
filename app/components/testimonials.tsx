import { testimonials } from "~/content/testimonials";
import { Section } from "./section";

function Stars({ rating }: { rating: number }) {
  return (
    <p className="stars" role="img" aria-label={`Rated ${rating} out of 5`}>
      {Array.from({ length: 5 }, (_, i) => (
        <svg key={i} viewBox="0 0 20 20" width="20" height="20" aria-hidden="true" focusable="false" className={i < rating ? "star star--on" : "star"}>
          <path d="M10 1.5l2.6 5.4 5.9.8-4.3 4.1 1 5.9L10 14.9l-5.2 2.8 1-5.9L1.5 7.7l5.9-.8z" />
        </svg>
      ))}
    </p>
  );
}

export function Testimonials() {
  return (
    <Section titleId="testimonials-title" eyebrow="Testimonials" title="What our clients say" alt>
      <div className="grid grid--3">
        {testimonials.map((t) => (
          <figure key={t.name} className="card testimonial">
            <Stars rating={t.rating} />
            <blockquote>
              <p>“{t.content}”</p>
            </blockquote>
            <figcaption className="person">
              <img src={t.image.src} alt={t.image.alt} width={t.image.width} height={t.image.height} loading="lazy" />
              <span>
                <strong>{t.name}</strong> <span className="muted">{t.position}</span>
              </span>
            </figcaption>
          </figure>
        ))}
      </div>
    </Section>
  );
}
