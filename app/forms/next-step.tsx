import { ContactDetails } from "~/components/contact-details";
import { calculatorText as text } from "~/content/calculator";

/**
 * The thanks' next step, at the moment of intent: the booking page when the operator set one
 * (BOOKING_URL, with the reference), else the agency's phone and email, to reach a person now.
 */
export function NextStep({ booking }: { booking?: string }) {
  return booking ? (
    <a className="btn" href={booking}>
      {text.bookCall}
    </a>
  ) : (
    <div className="next-step">
      <p>{text.talkNow}</p>
      <ContactDetails labelled />
    </div>
  );
}
