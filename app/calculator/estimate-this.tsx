import { Form } from "@remix-run/react";
import type { ReactNode } from "react";
import type { ServiceValue } from "./pricing";
import { countSteps, landing } from "~/funnel/visit";
import { saveAnswers, savedAnswers, useShowStep } from "./session";
import { newlyReached, parseState, resetState, type Step, stateToFields, WIZARD_ID, type WizardState } from "./state";

/**
 * What every step taken in the browser does, from the answers `before` to `after`: keeps the
 * answers in the tab, with the visit's landing, and counts each step reached for the first time
 * (decision 0036). StepButton's steps, and the wizard's once its rules have run (browser-step.ts).
 */
export function keepStep(before: WizardState, after: WizardState) {
  after.landing ??= landing();
  saveAnswers(after);
  countSteps(newlyReached(before, after), after.landing);
}

/** The choice each step asks for, by the step it leads to. */
const CHOICE_BEFORE = { 2: "service", 3: "timeframe", 4: "complexity" } as const;

/**
 * A button that opens the calculator at `state.step` with these answers chosen. Without
 * JavaScript it posts the step before with its choice, as that step's own button would (the
 * server keeps the draft); with it the browser takes the step itself, as the wizard does, and the
 * server keeps nothing (decision 0025).
 */
export function StepButton({ state, className, children }: { state: WizardState & { step: 2 | 3 | 4 }; className?: string; children: ReactNode }) {
  const show = useShowStep();
  const choice = CHOICE_BEFORE[state.step];
  return (
    <Form
      method="post"
      action={`/?index#${WIZARD_ID}`}
      className={className}
      onSubmit={(event) => {
        event.preventDefault();
        const before = parseState(savedAnswers());
        keepStep(before, { ...state, reached: Math.max(before.reached, state.step) as Step, landing: before.landing });
        show(state.step);
      }}
    >
      <input type="hidden" name="formName" value="calculator" />
      {Object.entries(stateToFields({ ...state, step: (state.step - 1) as 1 | 2 | 3 })).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button className="btn" type="submit" name={choice} value={state[choice]}>
        {children}
      </button>
    </Form>
  );
}

/** "Estimate This" on a service: the calculator at step 2, with that service chosen. */
export function EstimateThis({ service, name }: { service: ServiceValue; name: string }) {
  return (
    <StepButton state={{ ...resetState(), service, step: 2 }} className="estimate-this">
      Estimate This<span className="visually-hidden"> for {name}</span>
    </StepButton>
  );
}
