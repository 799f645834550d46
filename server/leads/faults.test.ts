import { describe, expect, it } from "vitest";
import { recordingLog } from "../../tests/support/quiet-log";
import { storeFaults } from "./faults";

const full = Object.assign(new Error("database or disk is full"), { errcode: 13, errstr: "database or disk is full" });

describe("a failing lead store", () => {
  it("makes the loop wait 1 s, doubling to a minute; says so once when it starts and once when it clears", () => {
    const { log, lines } = recordingLog();
    let now = 0;
    const faults = storeFaults(log, () => now);
    expect([faults.failing, faults.wait(2_000)]).toEqual([false, 2_000]);
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      faults.lookFailed(full);
      faults.failed(full, "write", { id: "L1" }); // a failed outcome meanwhile adds no wait
      waits.push(faults.wait(2_000));
    }
    expect(waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    expect(faults.failing).toBe(true);
    now += 183_000;
    faults.cleared();
    faults.cleared();
    expect([faults.failing, faults.wait(2_000)]).toEqual([false, 2_000]);
    expect(lines.map((l) => [l.event, l.level, l.code ?? l.seconds])).toEqual([
      ["lead_store_read_failed", "error", 13],
      ["lead_store_recovered", "info", 183],
    ]);
  });

  it("names PostgreSQL's own code for a failure (a SQLSTATE); a query pg gave up on has none, and is said all the same", () => {
    const { log, lines } = recordingLog();
    const faults = storeFaults(log, () => 0);
    faults.failed(Object.assign(new Error("canceling statement due to statement timeout"), { code: "57014" }), "write", { id: "L1" });
    faults.cleared();
    faults.lookFailed(new Error("Query read timeout"));
    expect(lines.map((l) => [l.event, l.code, l.cause, l.id])).toEqual([
      ["lead_store_write_failed", "57014", "canceling statement due to statement timeout", "L1"],
      ["lead_store_recovered", undefined, undefined, undefined],
      ["lead_store_read_failed", undefined, undefined, undefined],
    ]);
    expect(lines[2]!.err, "an error's name, never its message (it can quote input)").toEqual({ type: "Error" });
  });
});
