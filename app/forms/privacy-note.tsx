import { Link } from "@remix-run/react";

/** One line beside a form's send button: where the visitor's details go is explained at /privacy. */
export function PrivacyNote() {
  return (
    <p className="hint privacy-note">
      We use your details only to answer you. <Link to="/privacy">How we handle your data</Link>
    </p>
  );
}
