import { Link } from "@remix-run/react";
import { type FormEvent, type MouseEvent, type ReactNode, useEffect, useState } from "react";
import type { FieldErrors } from "./limits";
import type { roomLeft } from "./room";
import type { FormProblem } from "~/context";
import { calculatorText } from "~/content/calculator";
import { messages } from "~/content/messages";
import { HONEYPOT_FIELD } from "./honeypot";

export interface ControlProps {
  id: string;
  name: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
  onInput?: (event: FormEvent<Element & { value: string }>) => void;
}

/**
 * One labelled form control with its hint and its error messages, rendered the same on the server
 * and in the browser. `render` receives the props that wire the control to its label and messages.
 * A long text's box (`count`) also says how much room is left (GOV.UK's character count): its
 * bound until the visitor types (all a browser without JavaScript shows), then "4,880 characters
 * left", or "321 characters too many", as the check counts (app/forms/room.ts), so the box need not
 * cut a paste (decision 0044). It describes the box, so it is read with it, on a line of its own
 * that never moves the fields below.
 */
export function Field({
  form,
  name,
  label,
  errors,
  hint,
  count,
  render,
}: {
  form: string;
  name: string;
  label: string;
  errors?: FieldErrors | null;
  hint?: string;
  /**
   * For a long text (description, message): its bound in words ("At most 5,000 characters."), said
   * until the visitor types, and the rules as they load (roomLeft is among them), with which the box
   * then says how much room is left.
   */
  count?: { bound: string; load: () => Promise<{ roomLeft: typeof roomLeft }> };
  render: (props: ControlProps) => ReactNode;
}) {
  const id = `${form}-${name}`;
  // What the box says of its room, once the visitor types into it (the box itself is uncontrolled).
  const [room, setRoom] = useState<ReturnType<typeof roomLeft>>();
  const [announced, announce] = useState<string>();
  // Screen readers hear it once the visitor stops typing for a second, never at each keystroke.
  useEffect(() => {
    const pause = setTimeout(announce, 1000, room?.said);
    return () => clearTimeout(pause);
  }, [room]);
  const messages = errors?.[name] ?? [];
  const describedBy = [hint ? `${id}-hint` : null, count ? `${id}-count` : null, messages.length ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {render({
        id,
        name,
        "aria-invalid": messages.length ? true : undefined,
        "aria-describedby": describedBy || undefined,
        // Rules that cannot load (offline) leave the count as it was; the server still checks.
        onInput:
          count &&
          ((event) => {
            const typed = event.currentTarget.value;
            count.load().then(
              ({ roomLeft }) => setRoom(roomLeft(name as "description", typed)),
              () => undefined,
            );
          }),
      })}
      {count ? (
        <>
          <p className="count" data-over={room?.over} id={`${id}-count`}>
            {room?.said ?? count.bound}
          </p>
          <p className="visually-hidden" aria-live="polite">
            {announced}
          </p>
        </>
      ) : null}
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

/** The thanks' reference, which the agency's message ends with (both forms). */
export function Reference({ reference }: { reference?: string }) {
  return reference ? (
    <p>
      {calculatorText.referenceLabel}: <strong className="reference">{reference}</strong>
    </p>
  ) : null;
}

/** One line beside a form's send button: where the visitor's details go is explained at /privacy. */
export function PrivacyNote() {
  return (
    <p className="hint privacy-note">
      We use your details only to answer you. <Link to="/privacy">How we handle your data</Link>
    </p>
  );
}
