import type { ReactNode } from "react";
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
