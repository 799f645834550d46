import type { MouseEvent, ReactNode } from "react";
import type { FieldErrors } from "./limits";
import type { FormProblem } from "~/context";
import { messages } from "~/content/messages";
import { HONEYPOT_FIELD } from "./honeypot";

export interface ControlProps {
  id: string;
  name: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
}

/**
 * One labelled form control with its hint and its error messages, rendered the same on the server
 * and in the browser. `render` receives the props that wire the control to its label and messages.
 */
export function Field({
  form,
  name,
  label,
  errors,
  hint,
  render,
}: {
  form: string;
  name: string;
  label: string;
  errors?: FieldErrors | null;
  hint?: string;
  render: (props: ControlProps) => ReactNode;
}) {
  const id = `${form}-${name}`;
  const messages = errors?.[name] ?? [];
  const describedBy = [hint ? `${id}-hint` : null, messages.length ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {render({ id, name, "aria-invalid": messages.length ? true : undefined, "aria-describedby": describedBy || undefined })}
      {messages.length ? (
        <p className="field-error" id={`${id}-error`}>
          {messages.join(" ")}
        </p>
      ) : null}
    </div>
  );
}

/** Where a form's error summary is: a post refused without JavaScript lands there (its redirect's fragment). */
export const errorSummaryId = (form: string) => `${form}-error-summary`;

/**
 * The error summary above a form (the GOV.UK pattern): "There is a problem", then each field's
 * messages as a link to the field (Field's id, `<form>-<name>`). It comes from the same errors as
 * the fields, so the server and the browser render it alike. Without JavaScript the page after a
 * refused post opens at it; with it, focus goes to the first field in error instead (the caller's
 * `focusFirstInvalid`), and a link moves focus without a navigation: a changed fragment would be a
 * router navigation that starts the page's answer over.
 */
export function ErrorSummary({ form, errors }: { form: string; errors?: FieldErrors | null }) {
  const listed = Object.entries(errors ?? {});
  if (!listed.length) return null;
  const id = errorSummaryId(form);
  return (
    <section className="error-summary" id={id} aria-labelledby={`${id}-title`}>
      <h3 className="error-summary-title" id={`${id}-title`}>
        There is a problem
      </h3>
      <ul>
        {listed.map(([name, messages]) => (
          <li key={name}>
            <a href={`#${form}-${name}`} onClick={toField}>
              {messages.join(" ")}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Focus on the field, which the browser scrolls into view clear of the fixed header (`scroll-padding-top`). */
function toField(event: MouseEvent<HTMLAnchorElement>) {
  const field = document.getElementById(event.currentTarget.hash.slice(1));
  if (field) {
    event.preventDefault();
    field.focus();
  }
}

/** Moves focus to the first control marked invalid inside `form`, if any. */
export function focusFirstInvalid(form: HTMLFormElement | null) {
  form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
}

/** The honeypot field: invisible to people and to assistive technology, left empty by them. */
export function Honeypot() {
  return (
    <div className="hp-field" aria-hidden="true">
      <label>
        Leave this empty
        <input type="text" name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" defaultValue="" />
      </label>
    </div>
  );
}

/**
 * A form's two live regions: success in a status region, problems in an alert region. Both are
 * always rendered, so screen readers announce the text when it appears. The status region takes
 * focus from script (a form that starts over after a send keeps the visitor there).
 */
export function FormNotices({ status, sent, failed }: { status: "sent" | FormProblem | null; sent: string; failed: string }) {
  const problem = status === "failed" ? failed : status === "rateLimited" ? messages.rateLimited : "";
  return (
    <>
      <div role="status" className={status === "sent" ? "notice notice--ok" : "notice"} tabIndex={-1}>
        {status === "sent" ? sent : ""}
      </div>
      <div role="alert" className={problem ? "notice notice--error" : "notice"}>
        {problem}
      </div>
    </>
  );
}
