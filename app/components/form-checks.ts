/**
 * Loads the forms' browser-side checks (form-checks.lazy.ts, with zod) when a visitor first points
 * at, touches or tabs into a form, instead of with the page: they are most of the home page's own
 * JavaScript and only matter once someone fills a form in.
 */
export type FormChecks = typeof import("./form-checks.lazy");

let loaded: FormChecks | undefined;
let loading: Promise<FormChecks> | undefined;

/** The checks, loading them once; rejects if the chunk cannot be fetched (the next call retries). */
export function loadFormChecks(): Promise<FormChecks> {
  loading ??= import("./form-checks.lazy").then(
    (checks) => (loaded = checks),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * The part of a submit handler both forms share. `run` applies the checks and says whether the post
 * may go to the server. If the checks have not arrived yet, the post is held, they are loaded, and
 * `post` sends it when `run` agrees; if they cannot be loaded, `post` sends it and the server checks.
 */
export function checkThenSubmit(event: { preventDefault(): void }, run: (checks: FormChecks) => boolean, post: () => void) {
  if (loaded) {
    if (!run(loaded)) event.preventDefault();
    return;
  }
  event.preventDefault();
  loadFormChecks().then((checks) => run(checks) && post(), post);
}

function warm() {
  // A failure here only means the submit handler tries again, or leaves the check to the server.
  loadFormChecks().catch(() => undefined);
}

/** Spread on a form: starts loading the checks as soon as the visitor reaches for it. */
export const loadChecksOnIntent = { onPointerEnter: warm, onPointerDown: warm, onFocus: warm } as const;
