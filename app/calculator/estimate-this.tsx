import { Form } from "@remix-run/react";
import type { ServiceValue } from "./pricing";
import { saveAnswers, useShowStep } from "./session";
import { resetState, STATE_PREFIX, WIZARD_ID } from "./state";

/**
 * "Estimate This" on a service: step 1 of the calculator posted with that service, as its own
 * button would, so the visitor lands on step 2 with it chosen. With JavaScript the browser takes
 * that step itself, as the wizard does, and the server keeps nothing.
 */
export function EstimateThis({ service, name }: { service: ServiceValue; name: string }) {
  const show = useShowStep();
  return (
    <Form
      method="post"
      action={`/?index#${WIZARD_ID}`}
      className="estimate-this"
      onSubmit={(event) => {
        event.preventDefault();
        saveAnswers({ ...resetState(), service, step: 2 });
        show(2);
      }}
    >
      <input type="hidden" name="formName" value="calculator" />
      <input type="hidden" name={`${STATE_PREFIX}step`} value="1" />
      <button className="btn" type="submit" name="service" value={service}>
        Estimate This<span className="visually-hidden"> for {name}</span>
      </button>
    </Form>
  );
}
