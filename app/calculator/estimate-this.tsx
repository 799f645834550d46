import { Form } from "@remix-run/react";
import type { ServiceValue } from "./pricing";
import { STATE_PREFIX, WIZARD_ID } from "./state";

/**
 * "Estimate This" on a service: step 1 of the calculator posted with that service, as its own
 * button would, so the visitor lands on step 2 with it chosen, with or without JavaScript.
 */
export function EstimateThis({ service, name }: { service: ServiceValue; name: string }) {
  return (
    <Form method="post" action={`/?index#${WIZARD_ID}`} className="estimate-this">
      <input type="hidden" name="formName" value="calculator" />
      <input type="hidden" name={`${STATE_PREFIX}step`} value="1" />
      <button className="btn" type="submit" name="service" value={service}>
        Estimate This<span className="visually-hidden"> for {name}</span>
      </button>
    </Form>
  );
}
