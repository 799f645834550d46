/** Every box of step 5 at its longest, the email and phone wrong: the biggest draft a post leaves (about 6 KB). */
export const biggestDraft = (company: string) => ({
  formName: "calculator",
  "state.step": "5",
  "state.service": "seo",
  "state.timeframe": "urgent",
  "state.complexity": "complex",
  "state.description": "d".repeat(5_000),
  name: "n".repeat(100),
  companyName: company.padEnd(120, "c"),
  email: "e".repeat(254),
  phone: "p".repeat(30),
});
