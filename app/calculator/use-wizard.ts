import type { SerializeFrom } from "@remix-run/node";
import { useLocation, useNavigation, useNavigationType, useSubmit } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { flushSync } from "react-dom";
import type { DraftView } from "~/forms/draft.server";
import { type FailedSend, useSendAgainOnline } from "~/forms/failed-send";
import { focusFirstInvalid } from "~/forms/field";
import type { LazyChecks } from "~/forms/lazy-checks";
import type { roomLeft } from "~/forms/room";
import type { FieldErrors } from "~/forms/limits";
import type { Levels } from "~/content/levels";
import { useHydrated } from "~/utils/use-hydrated";
import type { calculatorAction } from "./action.server";
import type { takeStep } from "./browser-step";
import { keep } from "~/forms/tab-storage";
import { saveAnswers, savedAnswers, SENT_KEY, useShowStep } from "./session";
import { INTENT_FIELD, parseState, resetState, STATE_PREFIX, STEP_PARAM, TEXT_FIELDS, WIZARD_ID, type WizardState } from "./state";

type Answer = SerializeFrom<typeof calculatorAction>;
type Draft = SerializeFrom<DraftView<WizardState, { levels?: Levels }>>;
export interface WizardProps {
  /** The action's answer, or a send that failed in the browser (no state: the saved answers stand). */
  result: Answer | FailedSend<"calculator"> | undefined;
  draft: Draft;
  sent: { reference?: string; estimate?: string } | null;
  /** The rules, loaded when the visitor first reaches for the form (app/forms/README.md). */
  checks: LazyChecks<{ takeStep: typeof takeStep; roomLeft: typeof roomLeft; LEVELS: Record<string, Levels> }>;
}

/** What step 5's Send posts under `intent`, its label (state.ts); the wizard's send is known by it. */
export const SEND = "Send My Request";

export const POST = { method: "post", action: `/?index#${WIZARD_ID}`, preventScrollReset: true } as const;

/**
 * The calculator's state and behaviour; calculator-wizard.tsx renders them. Without JavaScript
 * every step is a post the server answers with a redirect to the step's page (`draft`, from the
 * page's loader). With it, steps 1–4 run the same rules in the browser, each step its own address
 * with the answers in session storage (session.ts), and only the send goes to the server. What
 * the page shows, first to last: a send's answer, the thanks, a draft, the browser's own answers.
 * Returns, in order: the view, the draft found (its id rides in the form), whether a send is under
 * way, the refs focus moves to (the step's heading, the form, the thanks) and the submit handler.
 */
export function useWizard({ result, draft, sent, checks }: WizardProps) {
  const location = useLocation();
  const found = draft && "id" in draft ? draft : null;
  // The saved answers exist only in the browser: the server's page, and hydration, show step 1.
  const hydrated = useHydrated();
  const step = new URLSearchParams(location.search).get(STEP_PARAM);
  const state = ((result as Partial<Answer> | undefined)?.state ??
    found?.state ??
    (hydrated && !sent ? parseState({ ...savedAnswers(), [`${STATE_PREFIX}step`]: step }) : resetState())) as WizardState;
  // Errors the browser found stay with the page they were found on.
  const [checked, setChecked] = useState<[key: string, errors: FieldErrors]>();
  const [rules, setRules] = useState<{ LEVELS: Record<string, Levels> }>();
  const view = {
    state,
    errors: checked?.[0] === location.key ? checked[1] : (found?.errors ?? null),
    status: result?.problem ?? (sent ? ("sent" as const) : null),
    // The note on a draft that is gone, as the server words it.
    expired: !result && (draft as { expired?: string } | null)?.expired,
    // Steps 2 and 3: a line on each level for the service chosen, the server's with its page, else the rules' module's.
    levels: found?.levels ?? rules?.LEVELS[state.service!],
  };
  const heading = useRef<HTMLHeadingElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const sentRef = useRef<HTMLDivElement>(null);
  const navigation = useNavigation();
  const arrival = useNavigationType();
  const submit = useSubmit();
  const show = useShowStep();
  // Only the wizard's send has this intent (the contact form and "Estimate This" have no intent field).
  const sending = navigation.formData?.get(INTENT_FIELD) === SEND;

  // A sent request's answers are gone once its thanks arrive (not when history returns to them, by
  // then the answers may be a new estimate's): Back to its steps starts over rather than offer
  // them again. After a navigation (a step, Back, Forward, the thanks) focus stays in the
  // calculator: on the thanks, on the first field in error, or on the heading of a step that
  // changed (not a tab's).
  // Steps 2 and 3 show a line on each level: the rules' module has them (loaded by then, unless
  // the step was opened from elsewhere, "Estimate This", or by a reload).
  const later = state.step > 1;
  useEffect(() => {
    if (!later) return;
    checks.load().then(setRules, () => undefined);
    void import("./breakdown"); // step 5's, ready by then (calculator-wizard.tsx)
  }, [later, checks]);
  const shown = useRef([location.key, state.step] as const);
  useEffect(() => {
    const [key, before] = shown.current;
    shown.current = [location.key, state.step];
    if (key === location.key) return;
    // The tab keeps the receipt of its latest send: that estimate's page says so, rather than offer the same request again.
    if (sent && arrival !== "POP") {
      saveAnswers(null);
      keep(SENT_KEY, sent);
    }
    if (view.status === "sent") sentRef.current?.focus();
    else if (view.errors) focusFirstInvalid(formRef.current);
    else if (before !== state.step) heading.current?.focus();
  });

  useSendAgainOnline(result, formRef);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const formData = new FormData(event.currentTarget, (event.nativeEvent as SubmitEvent).submitter);
    const fields = Object.fromEntries(formData);
    const post = () => submit(formData, { ...POST, action: sendAddress(location.search) });
    // Steps 1–4 run here. A valid send goes to the server, which checks everything again; without
    // the checks (they could not load), the server runs the step and answers with the next.
    checks.submit(
      event,
      ({ takeStep }) => {
        const outcome = takeStep(fields);
        if (outcome.errors) {
          flushSync(() => setChecked([location.key, outcome.errors!]));
          focusFirstInvalid(formRef.current);
        } else if (outcome.ready) post();
        else show(outcome.state.step);
        return false;
      },
      post,
    );
  }

  /** What is typed is kept as it is typed, so the browser's Back, Forward and reload keep it, as they do without JavaScript. */
  function onChange(event: FormEvent<HTMLFormElement>) {
    const fields = Object.fromEntries(new FormData(event.currentTarget));
    const typed = parseState(fields);
    for (const name of TEXT_FIELDS) if (typeof fields[name] === "string") typed[name] = fields[name];
    saveAnswers(typed);
  }

  // A tuple, like useState: named fields would cost the home page 60 B of script (perf/budgets.json).
  return [view, found, sending, heading, formRef, sentRef, onSubmit, onChange] as const;
}

/**
 * Where the wizard posts with JavaScript: the step's own address (with the action's `?index`), so
 * that, should the server not take a send, the page it answers stays at this step on a reload.
 */
function sendAddress(search: string) {
  const params = new URLSearchParams(search);
  params.delete("index");
  return `/?index${params.size ? `&${params}` : ""}#${WIZARD_ID}`;
}
