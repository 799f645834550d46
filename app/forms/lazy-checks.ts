/**
 * A form's browser-side checks, loaded when the visitor first points at, touches or tabs into the
 * form rather than with the page (README.md in this folder says why).
 */
export function lazyChecks<Checks>(load: () => Promise<Checks>) {
  let loaded: Checks | undefined;
  let loading: Promise<Checks> | undefined;
  const get = () =>
    (loading ??= load().then(
      (checks) => (loaded = checks),
      (error: unknown) => {
        loading = undefined; // the next attempt tries again
        throw error;
      },
    ));
  const warm = () => void get().catch(() => undefined);

  return {
    /** The checks, once loaded (at once when they are). */
    load: get,
    /** Spread on the form: starts loading as soon as the visitor reaches for it. */
    onIntent: { onPointerEnter: warm, onPointerDown: warm, onFocus: warm },
    /**
     * The submit handler's shared part. `run` applies the checks and says whether the post may go
     * to the server. Checks not here yet: the post is held, they are loaded, and `post` sends it
     * if `run` agrees; if they cannot be loaded, `post` sends it and the server checks.
     */
    submit(event: { preventDefault(): void }, run: (checks: Checks) => boolean, post: () => void) {
      if (loaded) {
        if (!run(loaded)) event.preventDefault();
        return;
      }
      event.preventDefault();
      get().then((checks) => run(checks) && post(), post);
    },
  };
}

/** What a form is handed: its checks, loaded once for the page (app/schema.ts). */
export type LazyChecks<Checks> = ReturnType<typeof lazyChecks<Checks>>;
