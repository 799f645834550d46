import { breakdownText } from "~/content/breakdown";
import { InRand } from "./estimate-this";
import { estimateParts, formatUsd } from "./pricing";
import type { WizardState } from "./state";

/*
 * A module of its own: the estimate's page renders it at once, the home page's step 5 loads it
 * (React.lazy) as the wizard passes step 1, so the home page's first script carries none of it.
 * The server's page has it whole (entry.server waits for everything), and hydration leaves it be
 * until it arrives.
 */

/**
 * The figure as base price × multipliers = total, in the same dollars, each multiplier also in
 * words ("Complex, 50% more"): step 5 and the estimate's own page.
 */
export default function Breakdown({ state }: { state: Pick<WizardState, "service" | "timeframe" | "complexity"> }) {
  if (!state.service) return null;
  const { base, factors, total } = estimateParts({ ...state, service: state.service });
  // A narrow card may wrap the sum before a "×", never between it and its number.
  const sum = [formatUsd(base.amount), ...factors.map((f) => f.multiplier)].join(" ×\u00a0");
  // The rand under the table, not in its cell: a narrow card's sum and labels keep their width.
  return (
    <>
      <table className="estimate-parts">
        <caption>{breakdownText.caption}</caption>
        <tbody>
          <tr>
            <th scope="row">
              <span>{base.label}</span>, {breakdownText.basePrice}
            </th>
            <td>{formatUsd(base.amount)}</td>
          </tr>
          {factors.map((f) => (
            <tr key={f.label}>
              <th scope="row">
                <span>{f.label}</span>, {breakdownText.change[f.multiplier]}
              </th>
              <td>× {f.multiplier}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">
              Your estimate <span className="estimate-sum">({sum})</span>
            </th>
            <td>
              <strong>{formatUsd(total)}</strong>
            </td>
          </tr>
        </tfoot>
      </table>
      <InRand usd={total} />
    </>
  );
}
