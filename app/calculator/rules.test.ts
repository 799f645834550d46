import { describe, expect, it } from "vitest";
import { calculatorRequestSchema, next, parseState } from "./rules";
import { newlyReached, resetState, stateToFields, type WizardState } from "./state";

const contact = { name: "Thandi Nkosi", companyName: "Acme Ltd", email: "ada@acme.example", phone: "+27 11 555 1234" };
const full: WizardState = { step: 5, reached: 5, service: "softwareDev", timeframe: "urgent", complexity: "complex", description: "A booking app", ...contact };
const at = (step: WizardState["step"], extra: Partial<WizardState> = {}): WizardState => ({ ...full, step, ...extra });
const tooLong = (field: string, max: string, length: string) => [`${field} must be at most ${max} characters; this one has ${length}`];

describe("steps 1–3: a choice", () => {
  it("is stored, and the wizard moves on, reaching the next step", () => {
    expect(next(resetState(), { service: "seo" })).toEqual({ state: { ...resetState(), step: 2, reached: 2, service: "seo" } });
    const two: WizardState = { ...resetState(), step: 2, service: "seo" };
    expect(next(two, { timeframe: "relaxed" })).toEqual({ state: { ...two, step: 3, reached: 3, timeframe: "relaxed" } });
    const three: WizardState = { ...two, step: 3, timeframe: "relaxed" };
    expect(next(three, { complexity: "complex" })).toEqual({ state: { ...three, step: 4, reached: 4, complexity: "complex" } });
  });

  it.each([
    ...["blockchain", "web", "SEO", "", "Software"].map((service) => [1, { service }, { service: ["Please choose a service"] }] as const),
    [1, {}, { service: ["Please choose a service"] }],
    [2, { timeframe: "yesterday" }, { timeframe: ["Please choose a timeframe"] }],
    [3, { complexity: "" }, { complexity: ["Please choose a complexity"] }],
    [3, { complexity: "huge" }, { complexity: ["Please choose a complexity"] }],
  ] as const)("an unknown or missing one stays put on step %i with a clear message: %j", (step, fields, errors) => {
    const state: WizardState = { ...resetState(), step, service: step > 1 ? "ai" : undefined, timeframe: step > 2 ? "urgent" : undefined };
    expect(next(state, fields)).toEqual({ state, errors });
  });

  it("is read from its button's label (a text browser shows a button's value, decision 0044) or its value (a link, a hidden field)", () => {
    expect(next(at(1), { service: "SEO & Digital Marketing" }).state).toMatchObject({ step: 2, service: "seo" });
    expect(next(at(1), { service: "seo" }).state).toMatchObject({ step: 2, service: "seo" });
    expect(next(at(2), { timeframe: "Relaxed (5-8 weeks)" }).state).toMatchObject({ step: 3, timeframe: "relaxed" });
    expect(next(at(3), { complexity: "Complex" }).state).toMatchObject({ step: 4, complexity: "complex" });
  });

  it("ignores fields of other steps and non-string values; an earlier choice changed after going back keeps the later ones", () => {
    const s: WizardState = { ...resetState(), step: 2, service: "ai" };
    expect(next(s, { service: "seo", timeframe: "urgent" }).state).toEqual({ ...s, step: 3, reached: 3, timeframe: "urgent" });
    expect(next(resetState(), { service: new Blob(["seo"]) }).errors).toEqual({ service: ["Please choose a service"] });
    expect(next(at(1), { service: "zoho" }).state).toEqual({ ...full, step: 2, service: "zoho" });
  });
});

describe("step 4: the description", () => {
  it("is optional: Continue stores it trimmed (or empty) and moves to step 5; without the field, the state's stands", () => {
    const s = at(4, { description: "" });
    expect(next(s, { intent: "continue", description: "  Build a shop \n" })).toEqual({ state: { ...s, step: 5, description: "Build a shop" } });
    for (const empty of ["", " \n\t "]) expect(next(at(4), { intent: "continue", description: empty })).toEqual({ state: at(5, { description: "" }) });
    expect(next(at(4), { intent: "continue" }).state).toEqual(at(5));
  });

  it("holds 5,000 characters; a longer one is kept as typed, with a message saying how long it is", () => {
    expect(next(at(4), { description: "x".repeat(5000) }).state.step).toBe(5);
    const long = "y".repeat(5001);
    expect(next(at(4), { intent: "continue", description: long })).toEqual({
      state: at(4, { description: long }),
      errors: { description: tooLong("Description", "5,000", "5,001") },
    });
  });
});

describe("step 5: the details, and the send", () => {
  const s = at(5, { name: "", companyName: "", email: "", phone: "" });

  it("sends the whole request, trimmed, and stays on step 5", () => {
    const r = next(s, { intent: "send", name: "  Thandi Nkosi \n", companyName: " Acme Ltd ", email: " ada@acme.example ", phone: " +27 11 555 1234 " });
    expect(r).toEqual({ state: full, ready: { service: "softwareDev", timeframe: "urgent", complexity: "complex", description: "A booking app", ...contact } });
    expect(next(s, { ...contact, name: "", companyName: "c".repeat(120) }).ready).toMatchObject({ name: "", companyName: "c".repeat(120) });
    expect(next(s, { ...contact, name: "n".repeat(100) }).ready?.name).toBe("n".repeat(100));
  });

  it("keeps what was typed and reports every field in error: the company (at most 120), the email, the phone, the optional name (at most 100)", () => {
    const r = next(s, { intent: "send", name: "n".repeat(101), companyName: "c".repeat(121), email: "ada@", phone: "12" });
    expect(r).toEqual({
      state: { ...s, name: "n".repeat(101), companyName: "c".repeat(121), email: "ada@", phone: "12" },
      errors: {
        name: tooLong("Name", "100", "101"),
        companyName: tooLong("Company name", "120", "121"),
        email: ["Please enter a valid email address"],
        phone: ["Phone number must contain at least 7 digits"],
      },
    });
    expect(next(s, { ...contact, companyName: "   ", phone: "call me" }).errors).toEqual({
      companyName: ["Please enter your company name"],
      phone: ["Phone number may only contain digits, spaces and + ( ) -"],
    });
  });

  it("does not send when an earlier step's value is missing (hand-built state) and goes to that step", () => {
    const r = next({ ...s, timeframe: undefined, description: " " }, { intent: "send", ...contact });
    expect(r.ready).toBeUndefined();
    expect(r.errors).toEqual({ timeframe: ["Please choose a timeframe"] });
    expect(r.state).toMatchObject({ step: 2, companyName: "Acme Ltd" });
  });

  it("the whole request needs every field but the name and the description", () => {
    const { step: _step, reached: _reached, ...request } = full;
    expect(calculatorRequestSchema.parse(request)).toEqual(request);
    const { name: _name, description: _description, ...anonymous } = request;
    expect(calculatorRequestSchema.parse(anonymous)).toEqual({ ...anonymous, name: "", description: "" });
    for (const key of Object.keys(anonymous)) expect(calculatorRequestSchema.safeParse({ ...request, [key]: undefined }).success, key).toBe(false);
  });
});

describe("Back", () => {
  it.each([1, 2, 3, 4, 5] as const)("from step %i goes one step down (not below 1) keeping every value", (step) => {
    expect(next(at(step), { intent: "Back" })).toEqual({ state: { ...full, step: Math.max(1, step - 1) } });
  });

  it("wins over a choice sent along with it, and keeps what was just typed on steps 4 and 5, even if invalid", () => {
    expect(next(at(2), { intent: "Back", timeframe: "relaxed" }).state).toEqual(at(1));
    expect(next(at(4), { intent: "Back", description: "  half-typed" }).state).toEqual(at(3, { description: "  half-typed" }));
    const typed = { name: "T", companyName: "X", email: "not-yet", phone: "" };
    expect(next(at(5), { intent: "Back", ...typed }).state).toEqual(at(4, typed));
  });
});

describe("Change (the answers shown from step 2 on)", () => {
  it.each([1, 2, 3, 4] as const)("goes straight to step %i, keeping the details typed on step 5", (step) => {
    const r = next(at(5), { [`change${step}`]: "Change", companyName: "Half typed", email: "" });
    expect(r).toEqual({ state: { ...full, step, review: 5, companyName: "Half typed", email: "" } });
  });

  it("only goes back, to a real step", () => {
    for (const change of ["change5", "change6", "change0", "change-1", "changetwo", "change", "change1.5"])
      expect(next(at(5), { [change]: "Change", intent: "Send My Request" }).state.step).toBe(5);
    expect(next(at(2), { change3: "Change", timeframe: "relaxed" }).state).toEqual({ ...full, step: 3, timeframe: "relaxed" });
  });

  it("after the changed step, comes back to step 5 when nothing else is missing", () => {
    expect(next(next(at(5), { change1: "Change" }).state, { service: "ai" })).toEqual({ state: { ...full, service: "ai" } });
    const description = next(at(5), { change4: "Change" }).state;
    expect(next(description, { intent: "continue", description: "A new brief" }).state).toEqual({ ...full, description: "A new brief" });
  });

  it("stops at the first step still missing, and shows errors where it stands; an empty description is not missing", () => {
    const noTimeframe = { ...at(1, { timeframe: undefined }), review: 5 as const };
    expect(next(noTimeframe, { service: "ai" }).state).toEqual({ ...full, step: 2, service: "ai", timeframe: undefined, review: 5 });
    const noDescription = { ...at(2, { description: "" }), review: 5 as const };
    expect(next(noDescription, { timeframe: "relaxed" }).state).toEqual({ ...full, step: 5, timeframe: "relaxed", description: "" });
    const changing = next(at(5), { change2: "Change" }).state;
    expect(next(changing, { timeframe: "soon" })).toEqual({ state: changing, errors: { timeframe: ["Please choose a timeframe"] } });
  });

  it("from steps 2–4, comes back to the step it was pressed on, never past a step not yet seen", () => {
    const fromStep3 = next(at(3, { complexity: "complex" }), { change1: "Change" }).state;
    expect(fromStep3).toEqual(at(1, { complexity: "complex", review: 3 }));
    expect(next(fromStep3, { service: "ai" }).state).toEqual(at(3, { complexity: "complex", service: "ai" }));
    const fromStep4 = next(next(at(4), { change2: "Change" }).state, { change1: "Change" }).state;
    expect(next(fromStep4, { service: "zoho" }).state).toEqual(at(4, { service: "zoho" }));
    // A Change below step 2 is none: step 1 shows no answers.
    expect(next(at(1), { change1: "Change", service: "zoho" }).state).toEqual(at(2, { service: "zoho" }));
  });

  it("Back during a change walks back as usual and ends the change", () => {
    const back = next(next(at(5), { change3: "Change" }).state, { intent: "Back" }).state;
    expect(back).toEqual(at(2));
    expect(next(back, { timeframe: "urgent" }).state).toEqual(at(3));
  });

  it("travels in the hidden fields, and only before step 5", () => {
    const changing = next(at(5), { change2: "Change" }).state;
    expect(stateToFields(changing)).toMatchObject({ "state.step": "2", "state.review": "5" });
    expect(parseState(stateToFields(changing))).toEqual(changing);
    expect(parseState({ ...stateToFields(full), "state.review": "5" })).toEqual(full);
    expect(parseState({ ...stateToFields(at(3)), "state.review": "3" })).toEqual(at(3));
  });
});

describe("the hidden fields", () => {
  it("a fresh wizard is step 1 with nothing chosen and complexity medium; its fields leave out the empty ones", () => {
    expect(resetState()).toEqual({ step: 1, reached: 1, complexity: "medium", description: "", name: "", companyName: "", email: "", phone: "" });
    expect(resetState()).not.toBe(resetState());
    expect(stateToFields(resetState())).toEqual({ "state.step": "1", "state.complexity": "medium" });
    expect(stateToFields(full)).toEqual(Object.fromEntries(Object.entries(full).map(([name, value]) => [`state.${name}`, String(value)])));
  });

  it("read back, every reachable state is itself; no fields (or unprefixed ones) are a fresh wizard", () => {
    const early = (state: Partial<WizardState>): WizardState => ({ ...resetState(), service: "seo", ...state });
    const states = [resetState(), early({ step: 2 }), early({ step: 3, timeframe: "standard" }), full, at(1), at(4, { email: "half" })];
    states.push(early({ step: 4, timeframe: "standard", complexity: "simple", description: "draft" }));
    for (const s of states) expect(parseState(stateToFields(s))).toEqual(s);
    expect(parseState({})).toEqual(resetState());
    expect(parseState({ service: "seo", step: "3" })).toEqual(resetState());
  });

  it("tampered values are dropped and the step clamped to what the answers allow", () => {
    expect(parseState({ "state.step": "5" })).toEqual(resetState());
    expect(parseState({ "state.step": "3", "state.service": "hacking", "state.timeframe": "urgent" })).toEqual({ ...resetState(), timeframe: "urgent" });
    expect(parseState({ "state.step": "3", "state.service": "ai" })).toEqual({ ...resetState(), step: 2, service: "ai" });
    const extreme = { "state.step": "4", "state.service": "ai", "state.timeframe": "urgent", "state.complexity": "extreme" };
    expect(parseState(extreme)).toEqual({ ...resetState(), step: 4, service: "ai", timeframe: "urgent" });
    // step 5 needs a service and a timeframe, not a description (it is optional)
    expect(parseState({ ...stateToFields(full), "state.description": "   " }).step).toBe(5);
    expect(parseState({ ...stateToFields(full), "state.timeframe": "" }).step).toBe(2);
    // Non-string and inherited values are not read.
    expect(parseState({ "state.step": 3 as unknown as string, "state.service": ["seo"] })).toEqual(resetState());
    expect(parseState(Object.create({ "state.service": "seo", "state.step": "2" }) as Record<string, unknown>)).toEqual(resetState());
  });

  it.each(["0", "6", "2.0", " 2", "two", "", "-1", "1e0"])("an invalid step %j becomes 1", (step) => {
    expect(parseState({ ...stateToFields(full), "state.step": step }).step).toBe(1);
  });

  it("a text too long is kept, for the visitor to shorten: sent with step 5 right, the visitor goes back to the step in error", () => {
    const long = { ...stateToFields(full), "state.description": "z".repeat(5001), "state.name": "n".repeat(101), "state.companyName": "c".repeat(121) };
    expect(parseState(long)).toMatchObject({ step: 5, description: "z".repeat(5001), name: "n".repeat(101), companyName: "c".repeat(121) });
    expect(next(parseState({ ...stateToFields(full), "state.description": "z".repeat(5001) }), { intent: "send" })).toMatchObject({
      state: { step: 4, description: "z".repeat(5001) },
      errors: { description: tooLong("Description", "5,000", "5,001") },
    });
  });

  it("read at another step's address (Back, Forward, a reload), keeps every answer at that step, or the furthest the answers allow", () => {
    expect(parseState({ ...stateToFields(full), "state.step": "3" })).toEqual(at(3));
    const early = stateToFields({ ...resetState(), step: 2, service: "ai", timeframe: "urgent" });
    expect(parseState({ ...early, "state.step": "5" })).toMatchObject({ step: 5, service: "ai", timeframe: "urgent", description: "" });
    expect(parseState({ ...early, "state.timeframe": null, "state.step": "5" })).toMatchObject({ step: 2, service: "ai" });
    expect(parseState({ ...early, "state.step": null })).toEqual({ ...resetState(), service: "ai", timeframe: "urgent" });
    // A Change under way ends where step 5 is shown.
    const changing = next(at(5), { change2: "Change" }).state;
    expect(parseState({ ...stateToFields(changing), "state.step": "5" })).toEqual(full);
    expect(parseState({ ...stateToFields(changing), "state.step": "3" })).toEqual({ ...at(3), review: 5 });
  });

  it("carry a whole walk without JavaScript: every post holds the state and one button", () => {
    const post = (s: WizardState, visible: Record<string, string>) =>
      next(parseState({ ...stateToFields(s), ...visible }), { ...stateToFields(s), ...visible });
    let r = post(resetState(), { service: "mobileApp" });
    r = post(r.state, { timeframe: "relaxed" });
    r = post(r.state, { complexity: "simple" });
    r = post(r.state, { intent: "continue", description: "An app for drivers" });
    expect(r.state.step).toBe(5);
    r = post(r.state, { intent: "send", companyName: "Fleet Co", email: "ops@fleet.example", phone: "011 555 0000" });
    expect(r.ready).toMatchObject({ service: "mobileApp", timeframe: "relaxed", complexity: "simple" });
  });
});

describe("the funnel's steps (decision 0036)", () => {
  it("a visit reaches each step once: a step after Back, a reload or a Change counts nothing new", () => {
    const walk = (state: WizardState, ...posts: Record<string, string>[]) => {
      const counted: string[] = [];
      for (const post of posts) {
        const before = parseState(stateToFields(state)); // as a post or the saved answers carry it
        state = next(before, post).state;
        counted.push(...newlyReached(before, state));
      }
      return counted;
    };
    const start = resetState();
    expect(walk(start, { service: "seo" }, { timeframe: "urgent" })).toEqual(["2", "3"]);
    expect(walk(start, { service: "seo" }, { intent: "Back" }, { service: "ai" }, { timeframe: "urgent" }, { complexity: "simple" })).toEqual(["2", "3", "4"]);
    expect(walk({ ...full, reached: 5 }, { change2: "Change" }, { timeframe: "relaxed" })).toEqual([]);
    // Arriving at step 2 already chosen ("Estimate This"), the next step counts both.
    expect(walk({ ...start, service: "seo", step: 2 }, { timeframe: "urgent" })).toEqual(["2", "3"]);
  });

  it("the reached step and the landing travel in the hidden fields; a malformed step or an overlong landing is dropped", () => {
    const landing = "?utm_source=newsletter&utm_campaign=spring www.google.com";
    const state: WizardState = { ...resetState(), step: 3, service: "seo", timeframe: "urgent", reached: 4, landing };
    expect(parseState(stateToFields(state))).toEqual(state);
    expect(parseState({ ...stateToFields(state), "state.reached": "9", "state.landing": "x".repeat(2001) })).toEqual({
      ...state,
      reached: 1,
      landing: undefined,
    });
  });
});
