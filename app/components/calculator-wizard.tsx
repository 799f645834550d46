import { Form, useLocation, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { FieldErrors } from "~/calculator/limits";
import { COMPLEXITIES, estimate, formatUsd, SERVICES, TIMEFRAMES } from "~/calculator/pricing";
import { LIMITS } from "~/calculator/limits";
import { type FormFields, INTENT, INTENT_FIELD, parseState, resetState, STEP_COUNT, stateToFields, type WizardState } from "~/calculator/wizard-state";
import type { FormProblem } from "~/context";
import { messages } from "~/content/messages";
import { Field, focusFirstInvalid, FormNotices, Honeypot } from "./field";
import { checkThenSubmit, type FormChecks, loadChecksOnIntent } from "./form-checks";

/** What the home action answers to a calculator post that did not end in a redirect. */
export interface CalculatorResult {
  form: "calculator";
  state: WizardState;
  errors: FieldErrors | null;
  problem: FormProblem | null;
}

const STORAGE_KEY = "calculator-wizard";
const POST = { method: "post", action: "/?index#calculator", preventScrollReset: true } as const;
const CHOICES = { 1: { name: "service", options: SERVICES }, 2: { name: "timeframe", options: TIMEFRAMES }, 3: { name: "complexity", options: COMPLEXITIES } } as const;
const HEADINGS = {
  1: "Which service do you need?",
  2: "When do you need it?",
  3: "How complex is it?",
  4: "Tell us about your project",
  5: "Where should we send your estimate?",
} as const;

/**
 * The five-step cost calculator. Without JavaScript every step is a POST the server answers with
 * the next step. With it, steps 1–4 run the same `next()` in the browser and only the send goes to
 * the server; the state survives a reload in sessionStorage.
 */
export function CalculatorWizard({ result, sent }: { result: CalculatorResult | undefined; sent: boolean }) {
  const [state, setState] = useState<WizardState>(() => result?.state ?? resetState());
  const [errors, setErrors] = useState<FieldErrors | null>(result?.errors ?? null);
  const [status, setStatus] = useState<"sent" | FormProblem | null>(result?.problem ?? (sent ? "sent" : null));
  const heading = useRef<HTMLHeadingElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const focusOnStep = useRef(false);
  const restored = useRef(false);
  const location = useLocation();
  const navigation = useNavigation();
  const submit = useSubmit();
  const sending = navigation.state !== "idle" && navigation.formData?.get(INTENT_FIELD) === INTENT.send && navigation.formData.has("state.step");

  // A server answer (a failed send, or a step posted before the page hydrated) wins.
  useEffect(() => {
    if (!result) return;
    setState(result.state);
    setErrors(result.errors);
    setStatus(result.problem);
  }, [result]);

  // A successful send redirects to ?sent=calculator: start over.
  useEffect(() => {
    if (!sent) return;
    setState(resetState());
    setErrors(null);
    setStatus("sent");
    sessionStorage.removeItem(STORAGE_KEY);
  }, [sent, location.key]);

  // A reload keeps the visitor's place.
  useEffect(() => {
    if (restored.current) return;
    restored.current = true;
    if (result || sent) return;
    const saved = sessionStorage.getItem(STORAGE_KEY);
    if (saved) setState(parseState(JSON.parse(saved) as Record<string, string>));
  }, [result, sent]);
  useEffect(() => {
    if (restored.current) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(stateToFields(state)));
  }, [state]);

  useEffect(() => {
    if (!focusOnStep.current) return;
    focusOnStep.current = false;
    if (errors) focusFirstInvalid(formRef.current);
    else heading.current?.focus();
  }, [state, errors]);

  /** One step in the browser; true when it is a valid send, which only the server can take. */
  function runStep(checks: FormChecks, fields: FormFields): boolean {
    const outcome = checks.next(parseState(fields), fields);
    if (outcome.ready) return true;
    focusOnStep.current = true;
    setState(outcome.state);
    setErrors(outcome.errors ?? null);
    setStatus(null);
    return false;
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter;
    const formData = new FormData(event.currentTarget, submitter);
    const fields = Object.fromEntries(formData);
    // A valid send goes to the server, which re-validates everything and delivers it. Without the
    // checks (they could not load), the server runs the same step and answers with the next.
    checkThenSubmit(event, (checks) => runStep(checks, fields), () => submit(formData, POST));
  }

  const step = state.step;
  const total = estimate(state);
  const hidden = stateToFields(state);

  return (
    <div className="wizard card">
      <FormNotices status={status} sent={messages.calculatorSent} failed={messages.calculatorFailed} />
      <div className="wizard-progress">
        <p id="wizard-progress-label">
          Step {step} of {STEP_COUNT}
        </p>
        <progress max={STEP_COUNT} value={step} aria-labelledby="wizard-progress-label" />
      </div>
      <Form method="post" action={POST.action} ref={formRef} onSubmit={onSubmit} {...loadChecksOnIntent} noValidate preventScrollReset aria-labelledby="wizard-heading">
        <input type="hidden" name="formName" value="calculator" />
        {Object.entries(hidden).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <h3 id="wizard-heading" ref={heading} tabIndex={-1}>
          {HEADINGS[step]}
        </h3>
        {step <= 3 ? (
          <ChoiceStep step={step as 1 | 2 | 3} state={state} errors={errors} />
        ) : step === 4 ? (
          <Field
            form="calc"
            name="description"
            label="Project description"
            hint="What should it do, who will use it, and anything we should know."
            errors={errors}
            render={(props) => <textarea {...props} defaultValue={state.description} maxLength={LIMITS.description} rows={6} required />}
          />
        ) : (
          <>
            <Field form="calc" name="companyName" label="Company name" errors={errors} render={(p) => <input {...p} defaultValue={state.companyName} maxLength={LIMITS.companyName} autoComplete="organization" required />} />
            <Field form="calc" name="email" label="Email" errors={errors} render={(p) => <input {...p} type="email" defaultValue={state.email} maxLength={LIMITS.email} autoComplete="email" required />} />
            <Field form="calc" name="phone" label="Phone" errors={errors} render={(p) => <input {...p} type="tel" defaultValue={state.phone} maxLength={LIMITS.phoneMax} autoComplete="tel" required />} />
            <Honeypot />
          </>
        )}
        {step >= 2 ? (
          <p className="estimate" aria-live="polite">
            {step === 5 ? "Your estimate" : "Estimate so far"}: <strong>{formatUsd(total)}</strong>
          </p>
        ) : null}
        <div className="wizard-actions">
          {step === 4 ? (
            <button className="btn" type="submit" name={INTENT_FIELD} value={INTENT.continue}>
              Continue
            </button>
          ) : null}
          {step === 5 ? (
            <button className="btn" type="submit" name={INTENT_FIELD} value={INTENT.send} disabled={sending}>
              {sending ? "Sending…" : "Send my request"}
            </button>
          ) : null}
          {step >= 2 ? (
            <button className="btn btn--ghost" type="submit" name={INTENT_FIELD} value={INTENT.back} formNoValidate>
              Back
            </button>
          ) : null}
        </div>
      </Form>
    </div>
  );
}

function ChoiceStep({ step, state, errors }: { step: 1 | 2 | 3; state: WizardState; errors: FieldErrors | null }) {
  const { name, options } = CHOICES[step];
  const current = state[name];
  const message = errors?.[name]?.join(" ");
  return (
    <>
      {message ? (
        <p className="field-error" id="calc-choice-error">
          {message}
        </p>
      ) : null}
      <div className="choices">
        {options.map((option) => (
          <button
            key={option.value}
            className="choice"
            type="submit"
            name={name}
            value={option.value}
            aria-current={option.value === current ? "true" : undefined}
            aria-describedby={message ? "calc-choice-error" : undefined}
          >
            {option.label}
          </button>
        ))}
      </div>
    </>
  );
}
