/**
 * Both forms' rules as the browser loads them: one module, fetched when a visitor first reaches for
 * either form (the home page hands it to both, app/forms/README.md). A module loaded on demand
 * splits whatever it shares with the page into scripts of their own, one per set of importers, so
 * it is one module, not one per form (the bounds both share, app/forms/limits.ts, had become a
 * script of the home page's first load), and the wizard's step in the browser comes with its rules
 * (browser-step.ts): the page's modules for steps (estimate-this.tsx, the tab's answers, the
 * funnel) then share one script with the choices and the state instead of two. A long text's box
 * counts its room with them (roomLeft): the count matters only once a visitor types.
 */
export { takeStep } from "~/calculator/browser-step";
export { contactSchema, fieldErrors } from "~/contact/schema";
export { roomLeft } from "~/forms/room";
// The lines on what each level means for each service, shown at steps 2 and 3 (not the page's script).
export { LEVELS } from "~/content/levels";
