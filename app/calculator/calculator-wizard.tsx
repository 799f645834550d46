import type { SerializeFrom } from "@remix-run/node";
import { Form, useLocation, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef, type FormEvent } from "react";
import { flushSync } from "react-dom";
import { messages } from "~/content/messages";
import { Field, focusFirstInvalid, FormNotices, Honeypot } from "~/forms/field";
import { lazyChecks } from "~/forms/lazy-checks";
import { PrivacyNote } from "~/forms/privacy-note";
import { type FieldErrors, LIMITS } from "~/forms/limits";
import { useAnswerState } from "~/forms/use-answer";
import type { calculatorAction } from "./action.server";
import { COMPLEXITIES, estimate, formatUsd, SERVICES, TIMEFRAMES } from "./pricing";
import { INTENT, INTENT_FIELD, resetState, STEP_COUNT, stateToFields, type WizardState } from "./state";

type Answer = SerializeFrom<typeof calculatorAction>;

const checks = lazyChecks(() => import("./rules"));
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
 * The five-step cost calculator. Without JavaScript every step is a post the server answers with
 * the next step. With it, steps 1–4 run the same rules in the browser and only the send goes to
 * the server; the visitor's place survives a reload (sessionStorage).
 */
export function CalculatorWizard({ result, sent }: { result: Answer | undefined; sent: boolean }) {
  const location = useLocation();
  const [view, setView] = useAnswerState(result ?? (sent ? location.key : undefined), () => ({
    state: (result?.state ?? resetState()) as WizardState,
    errors: result?.errors ?? null,
    status: result?.problem ?? (sent ? ("sent" as const) : null),
  }));
  const heading = useRef<HTMLHeadingElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const navigation = useNavigation();
  const submit = useSubmit();
  const sending = navigation.formData?.get("formName") === "calculator" && navigation.formData.get(INTENT_FIELD) === INTENT.send;

  // A send starts over; a reload keeps the visitor's place (restored once, after hydrating).
  useEffect(() => {
    if (sent) sessionStorage.removeItem(STORAGE_KEY);
  }, [sent, location.key]);
  useEffect(() => {
    const saved = sessionStorage.getItem(STORAGE_KEY);
    if (!saved || result || sent) return;
    void checks.get().then(({ parseState }) => setView((v) => ({ ...v, state: parseState(JSON.parse(saved) as Record<string, string>) })));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the first render's answer matters
  }, []);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const formData = new FormData(event.currentTarget, (event.nativeEvent as SubmitEvent).submitter);
    const fields = Object.fromEntries(formData);
    // Steps 1–4 run here. A valid send goes to the server, which checks everything again; without
    // the checks (they could not load), the server runs the step and answers with the next.
    checks.submit(
      event,
      ({ next, parseState }) => {
        const outcome = next(parseState(fields), fields);
        if (outcome.ready) return true;
        sessionStorage.setItem(STORAGE_KEY, JSON.stringify(stateToFields(outcome.state)));
        flushSync(() => setView({ state: outcome.state, errors: outcome.errors ?? null, status: null }));
        if (outcome.errors) focusFirstInvalid(formRef.current);
        else heading.current?.focus();
        return false;
      },
      () => submit(formData, POST),
    );
  }

  const { state, errors, status } = view;
  return (
    <div className="wizard card">
      <FormNotices status={status} sent={messages.calculatorSent} failed={messages.calculatorFailed} />
      <div className="wizard-progress">
        <p id="wizard-progress-label">
          Step {state.step} of {STEP_COUNT}
        </p>
        <progress max={STEP_COUNT} value={state.step} aria-labelledby="wizard-progress-label" />
      </div>
      <Form method="post" action={POST.action} ref={formRef} onSubmit={onSubmit} {...checks.onIntent} noValidate preventScrollReset aria-labelledby="wizard-heading">
        <input type="hidden" name="formName" value="calculator" />
        {Object.entries(stateToFields(state)).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <h3 id="wizard-heading" ref={heading} tabIndex={-1}>
          {HEADINGS[state.step]}
        </h3>
        <StepFields state={state} errors={errors} />
        {state.step >= 2 ? (
          <p className="estimate" aria-live="polite">
            {state.step === 5 ? "Your estimate" : "Estimate so far"}: <strong>{formatUsd(estimate(state))}</strong>
          </p>
        ) : null}
        <div className="wizard-actions">
          {state.step === 4 ? (
            <button className="btn" type="submit" name={INTENT_FIELD} value={INTENT.continue}>
              Continue
            </button>
          ) : null}
          {state.step === 5 ? (
            <button className="btn" type="submit" name={INTENT_FIELD} value={INTENT.send} disabled={sending}>
              {sending ? "Sending…" : "Send my request"}
            </button>
          ) : null}
          {state.step >= 2 ? (
            <button className="btn btn--ghost" type="submit" name={INTENT_FIELD} value={INTENT.back} formNoValidate>
              Back
            </button>
          ) : null}
        </div>
        {state.step === 5 ? <PrivacyNote /> : null}
      </Form>
    </div>
  );
}

function StepFields({ state, errors }: { state: WizardState; errors: FieldErrors | null }) {
  if (state.step <= 3) return <ChoiceStep step={state.step as 1 | 2 | 3} state={state} errors={errors} />;
  if (state.step === 4) {
    return (
      <Field
        form="calc"
        name="description"
        label="Project description"
        hint="What should it do, who will use it, and anything we should know."
        errors={errors}
        render={(props) => <textarea {...props} defaultValue={state.description} maxLength={LIMITS.description} rows={6} required />}
      />
    );
  }
  return (
    <>
      <Field form="calc" name="companyName" label="Company name" errors={errors} render={(p) => <input {...p} defaultValue={state.companyName} maxLength={LIMITS.companyName} autoComplete="organization" required />} />
      <Field form="calc" name="email" label="Email" errors={errors} render={(p) => <input {...p} type="email" defaultValue={state.email} maxLength={LIMITS.email} autoComplete="email" required />} />
      <Field form="calc" name="phone" label="Phone" errors={errors} render={(p) => <input {...p} type="tel" defaultValue={state.phone} maxLength={LIMITS.phoneMax} autoComplete="tel" required />} />
      <Honeypot />
    </>
  );
}

function ChoiceStep({ step, state, errors }: { step: 1 | 2 | 3; state: WizardState; errors: FieldErrors | null }) {
  const { name, options } = CHOICES[step];
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
            aria-current={option.value === state[name] ? "true" : undefined}
            aria-describedby={message ? "calc-choice-error" : undefined}
          >
            {option.label}
          </button>
        ))}
      </div>
    </>
  );
}
