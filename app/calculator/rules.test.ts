import { describe, expect, it } from "vitest";
import { calculatorRequestSchema, next, parseState } from "./rules";
import { newlyReached, resetState, stateToFields, type WizardState } from "./state";

const contact = { name: "Thandi Nkosi", companyName: "Acme Ltd", email: "ada@acme.example", phone: "+27 11 555 1234" };
const full: WizardState = {
  step: 5,
  reached: 5,
  service: "softwareDev",
  timeframe: "urgent",
  complexity: "complex",
  description: "A booking app",
  ...contact,
};
const at = (step: WizardState["step"], extra: Partial<WizardState> = {}): WizardState => ({ ...full, step, ...extra });

describe("each step's check, through next()", () => {
  it("steps 1–3 accept only known values, with a clear message otherwise", () => {
    expect(next(resetState(), { service: "mobileApp" }).state.service).toBe("mobileApp");
    for (const bad of [{ service: "web" }, { service: "" }, {}, { service: "SEO" }]) {
      expect(next(resetState(), bad).errors).toEqual({ service: ["Please choose a service"] });
    }
    expect(next(at(2), { timeframe: "relaxed" }).state.timeframe).toBe("relaxed");
    expect(next(at(2), { timeframe: "asap" }).errors).toEqual({ timeframe: ["Please choose a timeframe"] });
    expect(next(at(3), { complexity: "simple" }).state.complexity).toBe("simple");
    expect(next(at(3), { complexity: "huge" }).errors).toEqual({ complexity: ["Please choose a complexity"] });
  });

  it("step 4's description is optional, at most 5,000 characters: Continue moves to step 5 with it empty", () => {
    expect(next(at(4), { description: "x".repeat(5000) }).state.step).toBe(5);
    expect(next(at(4), { description: "x".repeat(5001) }).errors).toEqual({
      description: ["Description must be at most 5,000 characters; this one has 5,001"],
    });
    for (const empty of ["", " \n\t "]) expect(next(at(4), { intent: "continue", description: empty })).toEqual({ state: at(5, { description: "" }) });
  });

  it("step 5 requires company name (≤120), email and phone, trimmed", () => {
    expect(next(at(5), { companyName: " Acme ", email: " a@b.co ", phone: " 0115551234 " }).ready).toMatchObject({
      companyName: "Acme",
      email: "a@b.co",
      phone: "0115551234",
    });
    expect(next(at(5), { ...contact, companyName: "c".repeat(120) }).ready).toBeDefined();
    expect(next(at(5), { companyName: "c".repeat(121), email: "bad", phone: "12" }).errors).toEqual({
      companyName: ["Company name must be at most 120 characters; this one has 121"],
      email: ["Please enter a valid email address"],
      phone: ["Phone number must contain at least 7 digits"],
    });
    expect(next(at(5), { ...contact, companyName: "   " }).errors).toEqual({ companyName: ["Please enter your company name"] });
  });

  it("step 5's name is optional, trimmed, and at most 100 characters", () => {
    const details = { companyName: "Acme", email: "a@b.co", phone: "0115551234" };
    expect(next(at(5), { ...details, name: "" }).ready?.name).toBe("");
    expect(next(at(5), { ...details, name: "  Thandi Nkosi \n" }).ready?.name).toBe("Thandi Nkosi");
    expect(next(at(5), { ...details, name: "n".repeat(100) }).ready?.name).toBe("n".repeat(100));
    expect(next(at(5), { ...details, name: "n".repeat(101) }).errors).toEqual({ name: ["Name must be at most 100 characters; this one has 101"] });
  });

  it("the whole request needs every field but the name and the description", () => {
    const { step: _step, reached: _reached, ...request } = full;
    expect(calculatorRequestSchema.parse(request)).toEqual(request);
    const { name: _name, description: _description, ...anonymous } = request;
    expect(calculatorRequestSchema.parse(anonymous)).toEqual({ ...anonymous, name: "", description: "" });
    for (const key of Object.keys(anonymous)) {
      const partial: Record<string, unknown> = { ...request };
      delete partial[key];
      expect(calculatorRequestSchema.safeParse(partial).success).toBe(false);
    }
  });
});

describe("resetState", () => {
  it("is step 1 with nothing chosen and complexity medium", () => {
    expect(resetState()).toEqual({ step: 1, reached: 1, complexity: "medium", description: "", name: "", companyName: "", email: "", phone: "" });
    expect(resetState()).not.toBe(resetState());
  });
});

describe("next: choices (steps 1–3)", () => {
  it("step 1 stores the service and advances", () => {
    expect(next(resetState(), { service: "seo" })).toEqual({ state: { ...resetState(), step: 2, reached: 2, service: "seo" } });
  });
  it("step 2 stores the timeframe and advances", () => {
    const s: WizardState = { ...resetState(), step: 2, service: "seo" };
    expect(next(s, { timeframe: "relaxed" }).state).toEqual({ ...s, step: 3, reached: 3, timeframe: "relaxed" });
  });
  it("step 3 stores the complexity and advances", () => {
    const s: WizardState = { ...resetState(), step: 3, service: "seo", timeframe: "relaxed" };
    expect(next(s, { complexity: "complex" }).state).toEqual({ ...s, step: 4, reached: 4, complexity: "complex" });
  });
  it("an unknown or missing choice stays put with an error", () => {
    const s1 = resetState();
    expect(next(s1, { service: "blockchain" })).toEqual({ state: s1, errors: { service: ["Please choose a service"] } });
    expect(next(s1, {})).toEqual({ state: s1, errors: { service: ["Please choose a service"] } });
    const s2: WizardState = { ...s1, step: 2, service: "ai" };
    expect(next(s2, { timeframe: "yesterday" })).toEqual({ state: s2, errors: { timeframe: ["Please choose a timeframe"] } });
    const s3: WizardState = { ...s2, step: 3, timeframe: "urgent" };
    expect(next(s3, { complexity: "" })).toEqual({ state: s3, errors: { complexity: ["Please choose a complexity"] } });
  });
  it("ignores fields of other steps and non-string values", () => {
    const s: WizardState = { ...resetState(), step: 2, service: "ai" };
    expect(next(s, { service: "seo", timeframe: "urgent" }).state).toEqual({ ...s, step: 3, reached: 3, timeframe: "urgent" });
    expect(next(resetState(), { service: new Blob(["seo"]) }).errors).toEqual({ service: ["Please choose a service"] });
  });
  it("changing an earlier choice after going back keeps the later values", () => {
    const s = at(1);
    expect(next(s, { service: "zoho" }).state).toEqual({ ...full, step: 2, service: "zoho" });
  });
});

describe("next: back", () => {
  it.each([1, 2, 3, 4, 5] as const)("from step %i goes one step down (not below 1) keeping every value", (step) => {
    const r = next(at(step), { intent: "Back" });
    expect(r).toEqual({ state: { ...full, step: Math.max(1, step - 1) } });
  });
  it("back wins over a choice sent along with it", () => {
    expect(next(at(2), { intent: "Back", timeframe: "relaxed" }).state).toEqual(at(1));
  });
  it("keeps what was just typed on steps 4 and 5, even if invalid", () => {
    expect(next(at(4), { intent: "Back", description: "  half-typed" }).state).toEqual(at(3, { description: "  half-typed" }));
    expect(next(at(5), { intent: "Back", name: "T", companyName: "X", email: "not-yet", phone: "" }).state).toEqual(
      at(4, { name: "T", companyName: "X", email: "not-yet", phone: "" }),
    );
  });
});

describe("next: a choice as its button posts it", () => {
  it("takes its label, as the wizard's buttons post them (a text browser shows a button's value), or its value, as a link or a hidden field does", () => {
    expect(next(at(1), { service: "SEO & Digital Marketing" }).state).toMatchObject({ step: 2, service: "seo" });
    expect(next(at(1), { service: "seo" }).state).toMatchObject({ step: 2, service: "seo" });
    expect(next(at(2), { timeframe: "Relaxed (5-8 weeks)" }).state).toMatchObject({ step: 3, timeframe: "relaxed" });
    expect(next(at(3), { complexity: "Complex" }).state).toMatchObject({ step: 4, complexity: "complex" });
    expect(next(at(1), { service: "Software" }).errors).toEqual({ service: ["Please choose a service"] });
  });
});

describe("next: Change (step 5's summary)", () => {
  it.each([1, 2, 3, 4] as const)("goes straight to step %i, keeping the details typed on step 5", (step) => {
    const r = next(at(5), { [`change${step}`]: "Change", companyName: "Half typed", email: "" });
    expect(r).toEqual({ state: { ...full, step, review: true, companyName: "Half typed", email: "" } });
  });
  it("only goes back, to a real step", () => {
    for (const change of ["change5", "change6", "change0", "change-1", "changetwo", "change", "change1.5"])
      expect(next(at(5), { [change]: "Change", intent: "Send My Request" }).state.step).toBe(5);
    expect(next(at(2), { change3: "Change", timeframe: "relaxed" }).state).toEqual({ ...full, step: 3, timeframe: "relaxed" });
  });
  it("after the changed step, comes back to step 5 when nothing else is missing", () => {
    const changing = next(at(5), { change1: "Change" }).state;
    expect(next(changing, { service: "ai" })).toEqual({ state: { ...full, service: "ai" } });
    const description = next(at(5), { change4: "Change" }).state;
    expect(next(description, { intent: "continue", description: "A new brief" }).state).toEqual({ ...full, description: "A new brief" });
  });
  it("stops at the first step still missing, and shows errors where it stands; an empty description is not missing", () => {
    const noTimeframe = { ...at(1, { timeframe: undefined }), review: true as const };
    expect(next(noTimeframe, { service: "ai" }).state).toEqual({ ...full, step: 2, service: "ai", timeframe: undefined, review: true });
    const noDescription = { ...at(2, { description: "" }), review: true as const };
    expect(next(noDescription, { timeframe: "relaxed" }).state).toEqual({ ...full, step: 5, timeframe: "relaxed", description: "" });
    const changing = next(at(5), { change2: "Change" }).state;
    expect(next(changing, { timeframe: "soon" })).toEqual({ state: changing, errors: { timeframe: ["Please choose a timeframe"] } });
  });
  it("Back during a change walks back as usual and ends the change", () => {
    const changing = next(at(5), { change3: "Change" }).state;
    const back = next(changing, { intent: "Back" }).state;
    expect(back).toEqual(at(2));
    expect(next(back, { timeframe: "urgent" }).state).toEqual(at(3));
  });
  it("travels in the hidden fields, and only before step 5", () => {
    const changing = next(at(5), { change2: "Change" }).state;
    expect(stateToFields(changing)).toMatchObject({ "state.step": "2", "state.review": "1" });
    expect(parseState(stateToFields(changing))).toEqual(changing);
    expect(parseState({ ...stateToFields(full), "state.review": "1" })).toEqual(full);
  });
});

describe("next: step 4 (description)", () => {
  const s = at(4, { description: "", companyName: "", email: "", phone: "" });
  it("continue stores the trimmed description and advances", () => {
    expect(next(s, { intent: "continue", description: "  Build a shop \n" })).toEqual({
      state: { ...s, step: 5, description: "Build a shop" },
    });
  });
  it("keeps the submitted text with an error when too long", () => {
    const long = "y".repeat(5001);
    expect(next(s, { intent: "continue", description: long })).toEqual({
      state: { ...s, description: long },
      errors: { description: ["Description must be at most 5,000 characters; this one has 5,001"] },
    });
  });
  it("falls back to the state's description when the field is absent", () => {
    expect(next(at(4), { intent: "continue" }).state.step).toBe(5);
  });
});

describe("next: step 5 (send)", () => {
  const s = at(5, { name: "", companyName: "", email: "", phone: "" });
  it("returns the whole request when valid and stays on step 5", () => {
    const r = next(s, { intent: "send", name: "Thandi Nkosi ", companyName: " Acme Ltd ", email: "ada@acme.example", phone: "+27 11 555 1234" });
    expect(r.errors).toBeUndefined();
    expect(r.state).toEqual(full);
    expect(r.ready).toEqual({
      service: "softwareDev",
      timeframe: "urgent",
      complexity: "complex",
      description: "A booking app",
      name: "Thandi Nkosi",
      companyName: "Acme Ltd",
      email: "ada@acme.example",
      phone: "+27 11 555 1234",
    });
  });
  it("keeps typed values and reports every invalid field", () => {
    const r = next(s, { intent: "send", companyName: "", email: "ada@", phone: "call me" });
    expect(r.ready).toBeUndefined();
    expect(r.state).toEqual({ ...s, companyName: "", email: "ada@", phone: "call me" });
    expect(r.errors).toEqual({
      companyName: ["Please enter your company name"],
      email: ["Please enter a valid email address"],
      phone: ["Phone number may only contain digits, spaces and + ( ) -"],
    });
  });
  it("does not send when an earlier step's value is missing (hand-built state) and goes to that step", () => {
    const broken: WizardState = { ...s, timeframe: undefined, description: " " };
    const r = next(broken, { intent: "send", ...contact });
    expect(r.ready).toBeUndefined();
    expect(r.errors).toEqual({ timeframe: ["Please choose a timeframe"] });
    expect(r.state.step).toBe(2);
    expect(r.state.companyName).toBe("Acme Ltd");
  });
});

describe("hidden fields", () => {
  it("stateToFields writes prefixed fields and leaves out empty ones", () => {
    expect(stateToFields(resetState())).toEqual({ "state.step": "1", "state.complexity": "medium" });
    expect(stateToFields(full)).toEqual({
      "state.step": "5",
      "state.service": "softwareDev",
      "state.timeframe": "urgent",
      "state.complexity": "complex",
      "state.description": "A booking app",
      "state.name": "Thandi Nkosi",
      "state.companyName": "Acme Ltd",
      "state.email": "ada@acme.example",
      "state.phone": "+27 11 555 1234",
      "state.reached": "5",
    });
  });

  it("parseState round-trips every reachable state", () => {
    const states: WizardState[] = [
      resetState(),
      { ...resetState(), step: 2, service: "seo" },
      { ...resetState(), step: 3, service: "seo", timeframe: "standard" },
      { ...resetState(), step: 4, service: "seo", timeframe: "standard", complexity: "simple", description: "draft" },
      full,
      at(1),
      at(4, { email: "half" }),
    ];
    for (const s of states) expect(parseState(stateToFields(s))).toEqual(s);
  });

  it("parseState with no fields is the initial state", () => {
    expect(parseState({})).toEqual(resetState());
    expect(parseState({ service: "seo", step: "3" })).toEqual(resetState()); // unprefixed names are not state
  });

  it("drops tampered values and clamps the step", () => {
    expect(parseState({ "state.step": "5" })).toEqual(resetState());
    expect(parseState({ "state.step": "3", "state.service": "hacking", "state.timeframe": "urgent" })).toEqual({
      ...resetState(),
      timeframe: "urgent",
    });
    expect(parseState({ "state.step": "3", "state.service": "ai" })).toEqual({ ...resetState(), step: 2, service: "ai" });
    expect(parseState({ "state.step": "4", "state.service": "ai", "state.timeframe": "urgent", "state.complexity": "extreme" })).toEqual({
      ...resetState(),
      step: 4,
      service: "ai",
      timeframe: "urgent",
    });
    // step 5 needs a service and a timeframe, not a description (it is optional)
    const noDescription = { ...stateToFields(full), "state.description": "   " };
    expect(parseState(noDescription).step).toBe(5);
    expect(parseState({ ...stateToFields(full), "state.timeframe": "" }).step).toBe(2);
    // A text too long is kept, for the visitor to shorten: the step's check refuses it, saying so.
    const tooLong = { ...stateToFields(full), "state.description": "z".repeat(5001), "state.name": "n".repeat(101), "state.companyName": "c".repeat(121) };
    expect(parseState(tooLong)).toMatchObject({ step: 5, description: "z".repeat(5001), name: "n".repeat(101), companyName: "c".repeat(121) });
    // Sent with step 5's own fields right, the visitor goes back to the step in error, the description's.
    expect(next(parseState({ ...stateToFields(full), "state.description": "z".repeat(5001) }), { intent: "send" })).toMatchObject({
      state: { step: 4, description: "z".repeat(5001) },
      errors: { description: ["Description must be at most 5,000 characters; this one has 5,001"] },
    });
  });

  it("read at another step's address (Back, Forward, a reload), keeps every answer at that step, or the furthest the answers allow", () => {
    const at3 = { ...stateToFields(full), "state.step": "3" };
    expect(parseState(at3)).toEqual(at(3));
    const early = stateToFields({ ...resetState(), step: 2, service: "ai", timeframe: "urgent" });
    expect(parseState({ ...early, "state.step": "5" })).toMatchObject({ step: 5, service: "ai", timeframe: "urgent", description: "" });
    expect(parseState({ ...early, "state.timeframe": null, "state.step": "5" })).toMatchObject({ step: 2, service: "ai" });
    expect(parseState({ ...early, "state.step": null })).toEqual({ ...resetState(), service: "ai", timeframe: "urgent" });
    // A Change under way ends where step 5 is shown.
    const changing = next(at(5), { change2: "Change" }).state;
    expect(parseState({ ...stateToFields(changing), "state.step": "5" })).toEqual(full);
    expect(parseState({ ...stateToFields(changing), "state.step": "3" })).toEqual({ ...at(3), review: true });
  });

  it.each(["0", "6", "2.0", " 2", "two", "", "-1", "1e0"])("an invalid step %j becomes 1", (step) => {
    expect(parseState({ ...stateToFields(full), "state.step": step }).step).toBe(1);
  });

  it("ignores non-string and inherited values", () => {
    expect(parseState({ "state.step": 3 as unknown as string, "state.service": ["seo"] })).toEqual(resetState());
    const proto = Object.create({ "state.service": "seo", "state.step": "2" }) as Record<string, unknown>;
    expect(parseState(proto)).toEqual(resetState());
  });

  it("a full no-JavaScript walk through: every post carries the state and one button", () => {
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
    const five = { ...full, reached: 5 as const };
    expect(walk(five, { change2: "Change" }, { timeframe: "relaxed" })).toEqual([]);
    // Arriving at step 2 already chosen ("Estimate This"), the next step counts both.
    expect(walk({ ...start, service: "seo", step: 2 }, { timeframe: "urgent" })).toEqual(["2", "3"]);
  });
  it("the reached step and the landing travel in the hidden fields; a malformed step or an overlong landing is dropped", () => {
    const state: WizardState = {
      ...resetState(),
      step: 3,
      service: "seo",
      timeframe: "urgent",
      reached: 4,
      landing: "?utm_source=newsletter&utm_campaign=spring www.google.com",
    };
    expect(parseState(stateToFields(state))).toEqual(state);
    expect(parseState({ ...stateToFields(state), "state.reached": "9", "state.landing": "x".repeat(2001) })).toEqual({
      ...state,
      reached: 1,
      landing: undefined,
    });
  });
});
