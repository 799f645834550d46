import { Form } from "@remix-run/react";
import { lazy, type ReactNode, Suspense, useMemo } from "react";
import type { Levels } from "~/content/levels";
import { calculatorText as text } from "~/content/calculator";
import { messages } from "~/content/messages";
import { ErrorSummary, Field, FormNotices, Honeypot, PrivacyNote, Reference } from "~/forms/field";
import type { FieldErrors } from "~/forms/limits";
import { type Choices, estimateHref } from "./choices";
import { Figure } from "./estimate-this";
import type { Receipt } from "~/forms/draft.server";
import { COMPLEXITIES, estimate, optionOf, SERVICES, TIMEFRAMES } from "./pricing";
import { BACK, CHANGE_FIELD, CHOICES, INTENT_FIELD, STEP_COUNT, stateToFields, WIZARD_ID, type WizardState } from "./state";
import { POST, SEND, useWizard, type WizardProps } from "./use-wizard";

/** Step 5's breakdown, not in the page's first script (breakdown.tsx; use-wizard.ts loads it from step 2). */
const Breakdown = lazy(() => import("./breakdown"));

/**
 * The five-step cost calculator (its state and behaviour: use-wizard.ts). After a send, `sent`
 * carries what the server kept for this browser: the lead's reference, a line on what was sent
 * with the link to its estimate's page, and the booking page when there is one; else `reach`, the agency's phone and email.
 */
export function CalculatorWizard(props: Omit<WizardProps, "sent"> & { sent: Partial<Receipt> | null; reach: ReactNode }) {
  const [view, found, sending, heading, formRef, sentRef, onSubmit, onChange] = useWizard(props);
  const { sent, checks } = props;
  const { state, errors, status } = view;
  // One element while the choices stand: a step-5 page from the server keeps its breakdown until the
  // module arrives, and a new element before then would throw the server's away (React error 421).
  const { service, timeframe, complexity } = state;
  const breakdown = useMemo(
    () => (
      <Suspense>
        <Breakdown state={{ service, timeframe, complexity }} />
      </Suspense>
    ),
    [service, timeframe, complexity],
  );
  const figure = (
    <p className="estimate" aria-live="polite">
      {state.step < 5 ? "Estimate so far: " : "Your estimate: "}
      <Figure usd={estimate(state)} />
    </p>
  );
  return (
    <div className="wizard card" id={WIZARD_ID}>
      <FormNotices status={status} sent={messages.calculatorSent} failed={messages.calculatorFailed} />
      {status === "sent" ? (
        <div className="wizard-sent" ref={sentRef} tabIndex={-1}>
          <Reference reference={sent?.reference} />
          {sent?.summary ? (
            <p>
              {sent.summary} <a href={sent.estimate}>{text.keepLink}</a>
            </p>
          ) : null}
          {/* What happens next (the server's words, with the receipt), then the booking page when the
              operator set one (BOOKING_URL, with the reference), else the agency's phone and email. */}
          <p>{sent?.next}</p>
          {sent?.booking ? (
            <a className="btn" href={sent.booking}>
              {text.bookCall}
            </a>
          ) : (
            props.reach
          )}
        </div>
      ) : null}
      {view.expired ? <p className="wizard-note">{view.expired}</p> : null}
      <ErrorSummary form="calc" errors={errors} />
      <div className="wizard-progress">
        <p id="wizard-progress-label">
          Step {state.step} of {STEP_COUNT}
        </p>
        <progress max={STEP_COUNT} value={state.step} aria-labelledby="wizard-progress-label" />
      </div>
      <Form
        method="post"
        action={POST.action}
        ref={formRef}
        onSubmit={onSubmit}
        onChange={onChange}
        {...checks.onIntent}
        noValidate
        preventScrollReset
        aria-labelledby="wizard-heading"
      >
        <input type="hidden" name="formName" value="calculator" />
        {found ? <input type="hidden" name="draft" value={found.id} /> : null}
        {Object.entries(stateToFields(state)).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        {/* Steps 2–4 open with the answers so far, each with its Change, and the figure they make
            (a text field's Enter presses none of them: step 4's is a text area). */}
        {state.step > 1 && state.step < 5 ? (
          <div className="wizard-so-far">
            <Summary state={state} />
            {figure}
          </div>
        ) : null}
        <div className="wizard-main">
          <h3 id="wizard-heading" ref={heading} tabIndex={-1}>
            {text.headings[state.step]}
          </h3>
          {/* Before the fields: on a phone step 5 opens with the figure and "Company name" in view. */}
          {state.step === 5 ? figure : null}
          {state.step <= 3 ? (
            <ChoiceStep state={state} errors={errors} levels={view.levels} />
          ) : (
            <StepFields state={state} errors={errors} load={checks.load} />
          )}
          <div className="wizard-actions">
            {state.step === 4 ? <input className="btn" type="submit" name={INTENT_FIELD} value="Continue" /> : null}
            {state.step === 5 ? <input className="btn" type="submit" name={INTENT_FIELD} value={sending ? "Sending…" : SEND} disabled={sending} /> : null}{" "}
            {/* Spaces between controls (a flex box ignores them): a text browser runs them together otherwise. */}
            {state.step >= 2 ? <input className="btn btn--ghost" type="submit" name={INTENT_FIELD} value={BACK} /> : null}
          </div>
          {state.step === 5 ? <PrivacyNote /> : null}
        </div>
        {/* After the buttons: the first submit button is the one Enter in a field presses. Beside
            the fields on a wide screen. */}
        {state.step === 5 ? (
          <div className="wizard-side">
            {breakdown}
            {/* At step 5 all three choices are made (parseState and next() see to it). */}
            <a className="estimate-keep" href={estimateHref(state as Choices)}>
              {text.keepLink}
            </a>
            <Summary state={state} />
          </div>
        ) : null}
      </Form>
    </div>
  );
}

/** The answers so far (from step 2), each with a Change button that goes straight to its step. */
function Summary({ state }: { state: WizardState }) {
  const rows = [
    [1, "Service", "service", state.service && optionOf(SERVICES, state.service).label],
    [2, "Timeframe", "timeframe", state.timeframe && optionOf(TIMEFRAMES, state.timeframe).label],
    [3, "Complexity", "complexity", optionOf(COMPLEXITIES, state.complexity).label],
    [4, "Project description", "description", state.description || text.noDescription],
  ] as const;
  return (
    <section className="wizard-summary" aria-labelledby="wizard-summary-title">
      <h4 id="wizard-summary-title">{text.summaryTitle}</h4>
      <dl>
        {rows.slice(0, state.step - 1).map(([step, label, what, value]) => (
          <div key={step}>
            <dt>{label}</dt>
            <dd>
              <span className="summary-value">{value}</span>{" "}
              <input className="link-button" type="submit" name={`${CHANGE_FIELD}${step}`} value="Change" aria-label={`Change ${what}`} />
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** Steps 4 and 5. */
function StepFields({ state, errors, load }: { state: WizardState; errors: FieldErrors | null; load: WizardProps["checks"]["load"] }) {
  if (state.step === 4) {
    return (
      <Field
        form="calc"
        name="description"
        label="Project description (optional)"
        hint={text.descriptionHint}
        errors={errors}
        count={{ bound: text.descriptionBound, load }}
        render={(props) => <textarea {...props} defaultValue={state.description} rows={6} />}
      />
    );
  }
  return (
    <>
      <p className="step-intro">{text.detailsIntro}</p>
      <Field
        form="calc"
        name="name"
        label="Your name (optional)"
        errors={errors}
        render={(p) => <input {...p} defaultValue={state.name} autoComplete="name" />}
      />
      <Field
        form="calc"
        name="companyName"
        label="Company name"
        errors={errors}
        render={(p) => <input {...p} defaultValue={state.companyName} autoComplete="organization" required />}
      />
      <Field
        form="calc"
        name="email"
        label="Email"
        errors={errors}
        render={(p) => <input {...p} type="email" defaultValue={state.email} autoComplete="email" required />}
      />
      <Field
        form="calc"
        name="phone"
        label="Phone"
        errors={errors}
        render={(p) => <input {...p} type="tel" defaultValue={state.phone} autoComplete="tel" required />}
      />
      <Honeypot />
    </>
  );
}

/**
 * Steps 1–3; at steps 2 and 3 each choice has a line on what it means for the service chosen, which
 * describes it (its name stays its label).
 */
function ChoiceStep({ state, errors, levels }: { state: WizardState; errors: FieldErrors | null; levels?: Levels }) {
  const { name, options } = CHOICES[state.step - 1]!;
  const message = errors?.[name]?.join(" ");
  return (
    <>
      {message ? (
        <p className="field-error" id="calc-choice-error">
          {message}
        </p>
      ) : null}
      <div className="choices">
        {options.map((option, i) => {
          const note = levels?.[option.value as keyof Levels]; // none at step 1: no level has a service's value
          const described = [message && "calc-choice-error", note && `calc-note-${option.value}`].filter(Boolean).join(" ");
          return (
            <div key={option.value} className="choice-item">
              <input
                id={i === 0 ? `calc-${name}` : undefined}
                className="choice"
                type="submit"
                name={name}
                value={option.label}
                aria-current={option.value === state[name] ? "true" : undefined}
                aria-describedby={described || undefined}
              />
              {note ? (
                <p className="choice-note" id={`calc-note-${option.value}`}>
                  {note}
                </p>
              ) : null}
            </div>
          );
        })}
      </div>
    </>
  );
}
