import type { SerializeFrom } from "@remix-run/node";
import { Form, useLocation, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef, type FormEvent } from "react";
import { flushSync } from "react-dom";
import { calculatorText as text } from "~/content/calculator";
import { messages } from "~/content/messages";
import { Field, focusFirstInvalid, FormNotices, Honeypot } from "~/forms/field";
import { lazyChecks } from "~/forms/lazy-checks";
import { PrivacyNote } from "~/forms/privacy-note";
import { type FieldErrors, LIMITS } from "~/forms/limits";
import { useAnswerState } from "~/forms/use-answer";
import type { calculatorAction } from "./action.server";
import type { DraftView } from "./draft.server";
import { COMPLEXITIES, estimate, estimateParts, formatUsd, optionOf, SERVICES, TIMEFRAMES } from "./pricing";
import { CHANGE_FIELD, INTENT, INTENT_FIELD, resetState, STEP_COUNT, stateToFields, WIZARD_ID, type WizardState } from "./state";

type Answer = SerializeFrom<typeof calculatorAction>;
type Draft = SerializeFrom<DraftView>;

const checks = lazyChecks(() => import("./rules"));
const STORAGE_KEY = "calculator-wizard";
const POST = { method: "post", action: `/?index#${WIZARD_ID}`, preventScrollReset: true } as const;
const CHOICES = { 1: { name: "service", options: SERVICES }, 2: { name: "timeframe", options: TIMEFRAMES }, 3: { name: "complexity", options: COMPLEXITIES } } as const;

/**
 * The five-step cost calculator. Without JavaScript every step is a post the server answers with
 * a redirect to the step (`draft`, from the page's loader). With it, steps 1–4 run the same rules
 * in the browser and only the send goes to the server; the visitor's place survives a reload
 * (sessionStorage, tied to the page's draft). After a send, `sent` carries the lead's reference.
 */
export function CalculatorWizard({ result, draft, sent }: { result: Answer | undefined; draft: Draft; sent: { reference?: string } | null }) {
  const location = useLocation();
  const found = draft && "id" in draft ? draft : null;
  // The answer this view starts from: an action's, a draft's (by id), or a thank-you navigation's.
  const answer = result ?? (found ? `${found.id}@${location.key}` : draft ? `expired:${location.key}` : sent ? location.key : undefined);
  const [view, setView] = useAnswerState(answer, () => ({
    state: (result?.state ?? found?.state ?? resetState()) as WizardState,
    errors: result?.errors ?? found?.errors ?? null,
    status: result?.problem ?? (sent ? ("sent" as const) : null),
    expired: !result && draft !== null && !found,
  }));
  const heading = useRef<HTMLHeadingElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const sentRef = useRef<HTMLDivElement>(null);
  const navigation = useNavigation();
  const submit = useSubmit();
  const sending = navigation.formData?.get("formName") === "calculator" && navigation.formData.get(INTENT_FIELD) === INTENT.send;
  const draftParam = new URLSearchParams(location.search).get("draft") ?? "";

  // A send starts over; a reload keeps the visitor's place (restored once, after hydrating), unless
  // the page is a newer draft than the saved place (e.g. after "Estimate this").
  useEffect(() => {
    if (sent) sessionStorage.removeItem(STORAGE_KEY);
  }, [sent, location.key]);
  useEffect(() => {
    const saved = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "null") as { draft?: string; fields?: Record<string, string> } | null;
    if (!saved?.fields || saved.draft !== draftParam || result || sent) return;
    void checks.get().then(({ parseState }) => setView({ state: parseState(saved.fields!), errors: null, status: null, expired: false }));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only the first render's answer matters
  }, []);

  // A new answer that arrives by navigation (JavaScript on): focus stays in the calculator, on the
  // thanks and reference after a send, on the first field in error, or on the step's heading.
  const shown = useRef(answer);
  useEffect(() => {
    if (answer === undefined || answer === shown.current) return;
    shown.current = answer;
    if (view.status === "sent") sentRef.current?.focus();
    else if (view.errors) focusFirstInvalid(formRef.current);
    else if (!view.status) heading.current?.focus();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new answer moves focus
  }, [answer]);

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
        sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ draft: draftParam, fields: stateToFields(outcome.state) }));
        flushSync(() => setView({ state: outcome.state, errors: outcome.errors ?? null, status: null, expired: false }));
        if (outcome.errors) focusFirstInvalid(formRef.current);
        else heading.current?.focus();
        return false;
      },
      () => submit(formData, POST),
    );
  }

  const { state, errors, status } = view;
  return (
    <div className="wizard card" id={WIZARD_ID}>
      <FormNotices status={status} sent={messages.calculatorSent} failed={messages.calculatorFailed} />
      {status === "sent" ? (
        <div className="wizard-sent" ref={sentRef} tabIndex={-1}>
          {sent?.reference ? (
            <p>
              {text.referenceLabel}: <strong className="reference">{sent.reference}</strong>
            </p>
          ) : null}
          <p>{text.nextSteps}</p>
        </div>
      ) : null}
      {view.expired ? <p className="wizard-note">{text.expired}</p> : null}
      <div className="wizard-progress">
        <p id="wizard-progress-label">
          Step {state.step} of {STEP_COUNT}
        </p>
        <progress max={STEP_COUNT} value={state.step} aria-labelledby="wizard-progress-label" />
      </div>
      <Form method="post" action={POST.action} ref={formRef} onSubmit={onSubmit} {...checks.onIntent} noValidate preventScrollReset aria-labelledby="wizard-heading">
        <input type="hidden" name="formName" value="calculator" />
        {found ? <input type="hidden" name="draft" value={found.id} /> : null}
        {Object.entries(stateToFields(state)).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <h3 id="wizard-heading" ref={heading} tabIndex={-1}>
          {text.headings[state.step]}
        </h3>
        {state.step === 5 ? <Breakdown state={state} /> : null}
        <StepFields state={state} errors={errors} />
        {state.step >= 2 && state.step < 5 ? (
          <p className="estimate" aria-live="polite">
            Estimate so far: <strong>{formatUsd(estimate(state))}</strong>
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
        {/* After the buttons: the first submit button is the one Enter in a field presses. */}
        {state.step === 5 ? <Summary state={state} /> : null}
      </Form>
    </div>
  );
}

/** Step 5: the figure as base price × multipliers = total, in the same dollars. */
function Breakdown({ state }: { state: WizardState }) {
  if (!state.service) return null;
  const { base, factors, total } = estimateParts({ ...state, service: state.service });
  const sum = [formatUsd(base.amount), ...factors.map((f) => f.multiplier)].join(" × ");
  return (
    <table className="estimate estimate-parts">
      <caption>{text.breakdownCaption}</caption>
      <tbody>
        <tr>
          <th scope="row">
            {base.label}, {text.basePrice}
          </th>
          <td>{formatUsd(base.amount)}</td>
        </tr>
        {factors.map((f) => (
          <tr key={f.label}>
            <th scope="row">{f.label}</th>
            <td>× {f.multiplier}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">
            Your estimate <span className="estimate-sum">({sum})</span>
          </th>
          <td>
            <strong>{formatUsd(total)}</strong>
          </td>
        </tr>
      </tfoot>
    </table>
  );
}

/** Step 5: the answers so far, each with a Change button that goes straight to its step. */
function Summary({ state }: { state: WizardState }) {
  const rows = [
    [1, "Service", "service", state.service && optionOf(SERVICES, state.service).label],
    [2, "Timeframe", "timeframe", state.timeframe && optionOf(TIMEFRAMES, state.timeframe).label],
    [3, "Complexity", "complexity", optionOf(COMPLEXITIES, state.complexity).label],
    [4, "Project description", "description", state.description.length > 160 ? `${state.description.slice(0, 160)}…` : state.description],
  ] as const;
  return (
    <section className="wizard-summary" aria-labelledby="wizard-summary-title">
      <h4 id="wizard-summary-title">{text.summaryTitle}</h4>
      <dl>
        {rows.map(([step, label, what, value]) => (
          <div key={step}>
            <dt>{label}</dt>
            <dd>
              <span className="summary-value">{value}</span>
              <button className="link-button" type="submit" name={CHANGE_FIELD} value={step} formNoValidate>
                Change<span className="visually-hidden"> {what}</span>
              </button>
            </dd>
          </div>
        ))}
      </dl>
    </section>
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
      <p className="step-intro">{text.detailsIntro}</p>
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
