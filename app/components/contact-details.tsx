import { site } from "~/content/site";

/** The agency's email, phone and city, as a list; `labelled` prefixes "Email:" and "Phone:". */
export function ContactDetails({ className, labelled = false }: { className?: string; labelled?: boolean }) {
  return (
    <ul className={className}>
      <li>
        {labelled ? "Email: " : null}
        <a href={`mailto:${site.email}`}>{site.email}</a>
      </li>
      <li>
        {labelled ? "Phone: " : null}
        <a href={site.phoneHref}>{site.phone}</a>
      </li>
      <li>
        {site.address.city}, {site.address.country}
      </li>
    </ul>
  );
}
