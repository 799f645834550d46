import { Form } from "@remix-run/react";
import type { ReactNode } from "react";
import { calculatorText as text } from "~/content/calculator";
import { messages } from "~/content/messages";
import { ErrorSummary, Field, FormNotices, Honeypot } from "~/forms/field";
import type { roomLeft } from "~/forms/room";
import { NextStep, Reference } from "~/forms/next-step";
import { PrivacyNote } from "~/forms/privacy-note";
import type { FieldErrors } from "~/forms/limits";
import { type Choices, estimateHref } from "./choices";
import { Breakdown, Figure } from "./estimate-this";
import type { Receipt } from "~/forms/draft.server";
import { COMPLEXITIES, estimate, optionOf, SERVICES, TIMEFRAMES } from "./pricing";
import { BACK, CHANGE_FIELD, CHOICES, INTENT_FIELD, STEP_COUNT, stateToFields, WIZARD_ID, type WizardState } from "./state";
import { POST, SEND, useWizard, type WizardProps } from "./use-wizard";

/**
 * The five-step cost calculator (its state and behaviour: use-wizard.ts). After a send, `sent`
 * carries what the server kept for this browser: the lead's reference, a line on what was sent
 * with the link to its estimate's page, and the booking page when there is one; else `reach`, the agency's phone and email.
 */
export function CalculatorWizard(props: Omit<WizardProps, "sent"> & { sent: Partial<Receipt> | null; reach: ReactNode }) {
  const [view, found, sending, heading, formRef, sentRef, onSubmit, onChange] = useWizard(props);
  const { sent, checks } = props;
  const { state, errors, status } = view;
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
          <NextStep sent={sent} reach={props.reach} />
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
        <h3 id="wizard-heading" ref={heading} tabIndex={-1}>
          {text.headings[state.step]}
        </h3>
        {state.step === 5 ? <Breakdown state={state} /> : null}
        {/* At step 5 all three choices are made (parseState and next() see to it). */}
        {state.step === 5 ? (
          <p className="estimate-keep">
            <a href={estimateHref(state as Choices)}>{text.keepLink}</a>
          </p>
        ) : null}
        <StepFields state={state} errors={errors} count={{ bound: text.descriptionBound, load: checks.load }} />
        {state.step >= 2 && state.step < 5 ? (
          <p className="estimate" aria-live="polite">
            Estimate so far: <Figure usd={estimate(state)} />
          </p>
        ) : null}
        <div className="wizard-actions">
          {state.step === 4 ? <input className="btn" type="submit" name={INTENT_FIELD} value="Continue" /> : null}
          {state.step === 5 ? <input className="btn" type="submit" name={INTENT_FIELD} value={sending ? "Sending…" : SEND} disabled={sending} /> : null}{" "}
          {/* Spaces between controls (a flex box ignores them): a text browser runs them together otherwise. */}
          {state.step >= 2 ? <input className="btn btn--ghost" type="submit" name={INTENT_FIELD} value={BACK} /> : null}
        </div>
        {state.step === 5 ? <PrivacyNote /> : null}
        {/* After the buttons: the first submit button is the one Enter in a field presses. */}
        {state.step === 5 ? <Summary state={state} /> : null}
      </Form>
    </div>
  );
}

/** Step 5: the answers so far, each with a Change button that goes straight to its step. */
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
        {rows.map(([step, label, what, value]) => (
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

function StepFields({
  state,
  errors,
  count,
}: {
  state: WizardState;
  errors: FieldErrors | null;
  count: { bound: string; load: () => Promise<{ roomLeft: typeof roomLeft }> };
}) {
  if (state.step <= 3) return <ChoiceStep step={state.step as 1 | 2 | 3} state={state} errors={errors} />;
  if (state.step === 4) {
    return (
      <Field
        form="calc"
        name="description"
        label="Project description (optional)"
        hint={text.descriptionHint}
        errors={errors}
        count={count}
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

function ChoiceStep({ step, state, errors }: { step: 1 | 2 | 3; state: WizardState; errors: FieldErrors | null }) {
  const { name, options } = CHOICES[step - 1]!;
  const message = errors?.[name]?.join(" ");
  return (
    <>
      {message ? (
        <p className="field-error" id="calc-choice-error">
          {message}
        </p>
      ) : null}
      <div className="choices">
        {options.map((option, i) => [
          " ",
          <input
            key={option.value}
            id={i === 0 ? `calc-${name}` : undefined}
            className="choice"
            type="submit"
            name={name}
            value={option.label}
            aria-current={option.value === state[name] ? "true" : undefined}
            aria-describedby={message ? "calc-choice-error" : undefined}
          />,
        ])}
      </div>
    </>
  );
}
