import { Form, useRouteLoaderData } from "@remix-run/react";
import { countSteps, landing } from "~/funnel/visit";
import { aboutRand, formatUsd, type ServiceValue, type ZarRate } from "./pricing";
import { saveAnswers, savedAnswers, useShowStep } from "./session";
import { newlyReached, parseState, resetState, type Step, stateToFields, WIZARD_ID, type WizardState } from "./state";

/*
 * The calculator's parts that pages show beside or without its wizard (decision 0024): a button
 * that opens it at a step with answers chosen (the estimate's page; "Estimate This" on the home
 * page and /services), and an estimate's figure with its rand. One module, so those pages share
 * one file of script. The breakdown is a module of its own (breakdown.tsx), loaded by the home
 * page only once a visitor takes a step.
 */

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
export function StepButton({ state, className, label, name }: { state: WizardState & { step: 2 | 3 | 4 }; className?: string; label: string; name?: string }) {
  const show = useShowStep();
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
      {/* The step's choice, as its own button would post it; the one button shows only its words (a
          text browser shows a button's value beside them, decision 0044). */}
      <input type="hidden" name={CHOICE_BEFORE[state.step]} value={state[CHOICE_BEFORE[state.step]]} />
      <input className="btn" type="submit" value={label} aria-label={name} />
    </Form>
  );
}

/** "Estimate This" on a service: the calculator at step 2, with that service chosen. */
export function EstimateThis({ service, name }: { service: ServiceValue; name: string }) {
  return <StepButton state={{ ...resetState(), service, step: 2 }} className="estimate-this" label="Estimate This" name={`Estimate This for ${name}`} />;
}

/** An estimate's figure in dollars, and beside it in rand when the operator set a rate (InRand). */
export function Figure({ usd }: { usd: number }) {
  return (
    <>
      <strong>{formatUsd(usd)}</strong>
      <InRand usd={usd} />
    </>
  );
}

/** A figure in rand, when the operator set a rate (the root's loader hands it over), e.g. " (about R 103,500 at R 18.40 to the dollar, 30 Nov 2026)". */
export function InRand({ usd }: { usd: number }) {
  const zar = useRouteLoaderData("root") as ZarRate | null;
  return zar ? <small>{aboutRand(usd, zar)}</small> : null;
}
