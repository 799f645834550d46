import type { ClientActionFunctionArgs } from "@remix-run/react";
import { type RefObject, useEffect } from "react";
import type { FormProblem } from "~/context";

/** What a form's view gets when its send failed in the browser: no answer from the action. */
export type FailedSend<Form extends string> = Form extends string ? { form: Form; problem: FormProblem } : never;

/**
 * How long a send may go unanswered before it has failed (decision 0038). The server gives a
 * request 20 s to arrive whole (`requestTimeout`, server/index.ts), then answers once the lead is
 * stored, never waiting for its delivery (p99 under 1 s, perf/budgets.json); 10 s more covers a
 * poor link's connecting and the answer's way back. So a slow server that works answers first,
 * and a send still unanswered was dropped, or its answer was.
 */
export const SEND_DEADLINE_MS = 30_000;

/**
 * The home page's forms post through this with JavaScript (decision 0028). A send whose request
 * failed (offline, a reset, a timeout, a proxy's 5xx, the site restarting, a post the server
 * refused before the action: anything but the action's own answer) or went unanswered past the
 * deadline is answered here as the site answers a lead it could not store: the form as it was,
 * with its failure text (or, refused as too many, the wait); the cause goes to the console. Never
 * the error page: what the visitor typed is on this one. The action's answers (a redirect to the
 * thanks, a form not taken) pass through unchanged.
 */
export function sendOrKeep<Answer>({ request, serverAction }: ClientActionFunctionArgs) {
  const copy = request.clone(); // the post itself, to say which form failed
  const failed = async (error: unknown) => {
    console.error(error);
    const problem = (error as Response | null)?.status === 429 ? "rateLimited" : "failed";
    return { form: (await copy.formData()).get("formName"), problem } as FailedSend<"calculator" | "contact">;
  };
  // Remix 2's serverAction() takes no signal (its fetch has the navigation's), so the deadline races
  // it: a late answer is dropped (a lead it made is the one a second send is thanked for).
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(reject, SEND_DEADLINE_MS, "timeout")));
  return Promise.race([serverAction<Answer>(), deadline])
    .finally(() => clearTimeout(timer))
    .then(
      // Anything but a form not taken (which names its problem) came from elsewhere: a Wi-Fi login
      // page, a proxy's 200. Nobody knows whether it was sent, so the visitor is told to try again.
      (answer) => ((answer as { problem?: unknown } | null)?.problem ? answer : (failed(answer) as unknown as typeof answer)),
      (error: unknown) => {
        if (error instanceof Response && error.status < 400) throw error; // a redirect: the thanks
        return failed(error);
      },
    );
}

/**
 * After a failed send the form sends itself again, once, when the browser is back online (the
 * `online` event), with its first submit control, the send (as Enter would); a new answer or a new page
 * first cancels it. The site answers a repeated form with the first one's thanks, so a send that did
 * arrive is never doubled.
 */
export function useSendAgainOnline(result: { problem?: string } | undefined, form: RefObject<HTMLFormElement>) {
  useEffect(() => {
    if (result?.problem !== "failed") return;
    const again = () => form.current?.requestSubmit(form.current.querySelector<HTMLInputElement>("[type=submit]"));
    addEventListener("online", again, { once: true });
    return () => removeEventListener("online", again);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a ref: the same object every render
  }, [result]);
}
