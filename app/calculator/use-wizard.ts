import type { SerializeFrom } from "@remix-run/node";
import { useLocation, useNavigation, useSubmit } from "@remix-run/react";
import { useEffect, useRef, type FormEvent } from "react";
import { flushSync } from "react-dom";
import { focusFirstInvalid } from "~/forms/field";
import { lazyChecks } from "~/forms/lazy-checks";
import { useAnswerState } from "~/forms/use-answer";
import type { calculatorAction } from "./action.server";
import type { DraftView } from "./draft.server";
import { INTENT, INTENT_FIELD, resetState, stateToFields, WIZARD_ID, type WizardState } from "./state";

type Answer = SerializeFrom<typeof calculatorAction>;
type Draft = SerializeFrom<DraftView>;
export interface WizardProps {
  result: Answer | undefined;
  draft: Draft;
  sent: { reference?: string } | null;
}

export const checks = lazyChecks(() => import("./rules"));
const STORAGE_KEY = "calculator-wizard";
export const POST = { method: "post", action: `/?index#${WIZARD_ID}`, preventScrollReset: true } as const;

/**
 * The calculator's state and behaviour; calculator-wizard.tsx renders them. Without JavaScript
 * every step is a post the server answers with a redirect to the step (`draft`, from the page's
 * loader). With it, steps 1–4 run the same rules in the browser and only the send goes to the
 * server; the visitor's place survives a reload (sessionStorage, tied to the page's draft).
 * Returns, in order: the view, the draft found (its id rides in the form), whether a send is under
 * way, the refs focus moves to (the step's heading, the form, the thanks) and the submit handler.
 */
export function useWizard({ result, draft, sent }: WizardProps) {
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

  // A tuple, like useState: named fields would cost the home page 60 B of script (perf/budgets.json).
  return [view, found, sending, heading, formRef, sentRef, onSubmit] as const;
}
