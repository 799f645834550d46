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
    expect(lines.map((l) => [l.event, l.level, (l.err as { code?: number } | undefined)?.code ?? l.seconds])).toEqual([
      ["lead_store_read_failed", "error", 13],
      ["lead_store_recovered", "info", 183],
    ]);
  });
});
