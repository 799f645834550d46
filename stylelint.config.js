/**
 * CSS that works in every current browser: only features Baseline calls widely available (in
 * every major browser for 30 months), or newer ones inside an @supports block that gives the
 * older browsers a fallback (decision 0015: the desktop nav once relied on ::details-content).
 * @type {import("stylelint").Config}
 */
export default {
  plugins: ["stylelint-plugin-use-baseline"],
  rules: {
    "plugin/use-baseline": [true, { available: "widely" }],
  },
};
