/**
 * Prometheus metrics as an operator scrapes them: on METRICS_PORT only, never on the public port,
 * with the runtime's metrics, the lead counters, the queue's state (a lead parked for good) and no
 * personal data or key; and the alert rules shipped with them, tested with promtool on series a
 * real scrape has. Each test starts its own server from build/ (opsPort 17 and 40-43, fake form
 * services opsPort 41 and 53, metrics opsPort 42 and 57).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { parse } from "yaml";
import { startFakeFormService } from "../support/fake-form-service";
import { dataDir, events, keyed, postContact, REPO, serve } from "../support/server";
import { opsPort, TEST_ACCESS_KEY } from "../support/sites";

test("after one lead, /metrics on METRICS_PORT counts it and shows the runtime; the public port answers 404 there; nothing personal", async () => {
  const fake = await startFakeFormService({ port: opsPort(41) });
  const metricsUrl = `http://127.0.0.1:${opsPort(42)}/metrics`;
  const server = serve(opsPort(40), keyed(fake, dataDir(), { METRICS_PORT: String(opsPort(42)), CONTAINER_NAME: "site-under-test" }));
  try {
    await server.listening;
    expect((await postContact(server.url, "Our confidential launch (metrics)")).status).toBe(303);
    await expect.poll(() => fake.accepted("(metrics)").length).toBe(1);
    expect((await fetch(`${server.url}/no-such-page-for-ada?email=ada@example.com`)).status).toBe(404);
    // A request is counted when its answer has ended, which may be just after the client has the status.
    const scrape = async () => {
      const response = await fetch(metricsUrl);
      expect([response.status, response.headers.get("content-type")]).toEqual([200, expect.stringContaining("text/plain")]);
      return response.text();
    };
    await expect.poll(scrape).toMatch(/^http_request_duration_seconds_count\{[^}]*route="other",method="GET",status="404"[^}]*\} 1$/m);
    const text = await scrape();
    expect(text).toMatch(/^leads_accepted_total\{[^}]*kind="contact"[^}]*\} 1$/m);
    expect(text).toMatch(/^leads_delivered_total\{[^}]*kind="contact"[^}]*\} 1$/m);
    expect(text).toMatch(/^lead_delivery_attempt_duration_seconds_count\{[^}]*outcome="delivered"[^}]*\} 1$/m);
    expect(text).toMatch(/^leads_pending\{[^}]*\} 0$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{[^}]*\} /m);
    expect(text).toMatch(/^process_resident_memory_bytes\{[^}]*\} /m);
    expect(text).toMatch(/^http_request_duration_seconds_count\{[^}]*route="\/",method="POST",status="303"[^}]*\} 1$/m);
    expect(text).toMatch(/^http_request_duration_seconds_count\{[^}]*route="other",method="GET",status="404"[^}]*\} 1$/m);
    expect(text).not.toMatch(/confidential|Ada|ada@|no-such-page|example\.com|127\.0\.0\.1/);
    expect(text).not.toContain(TEST_ACCESS_KEY);

    expect(text).toMatch(/^lead_store_failing\{[^}]*\} 0$/m);
    // Why leads are held and from how many address codes, from the first scrape.
    expect(text).toMatch(/^leads_held_now\{[^}]*reason="ceiling"[^}]*\} 0$/m);
    expect(text).toMatch(/^leads_held_now\{[^}]*reason="address"[^}]*\} 0$/m);
    expect(text).toMatch(/^leads_held_addresses\{[^}]*\} 0$/m);
    // Every series names the container (CONTAINER_NAME) and the store it reports: on SQLite its own.
    const samples = text.split("\n").filter((line) => line && !line.startsWith("#"));
    expect(samples.filter((line) => !line.includes('container="site-under-test"') || !line.includes('store="site-under-test"'))).toEqual([]);

    // The alert rules shipped beside compose.yaml (their expressions and the queries in their
    // texts), and their tests, use only series that exist: names, and label names beside the
    // target's own (Prometheus adds those, and `up`).
    const queries = (r: { annotations: Record<string, string> }) =>
      Object.values(r.annotations).flatMap((t) => [...t.matchAll(/printf "([^"]*)"/g)].map((m) => m[1]!));
    const named = alertRules().flatMap((r) =>
      [r.expr, ...queries(r)].flatMap((query) => [...query.matchAll(/\b(?:leads?|http|nodejs|process|form)_\w+/g)].map((m) => m[0])),
    );
    expect(named).toEqual(expect.arrayContaining(["leads_held_addresses", "leads_held_total", "process_start_time_seconds"]));
    expect(named.length).toBeGreaterThan(6);
    expect(
      named.filter((name) => !new RegExp(`^${name}[ {]`, "m").test(text)),
      "named in prometheus-rules.yaml but not served",
    ).toEqual([]);
    const series = ruleTests().flatMap((t) => t.input_series.map((i) => i.series));
    expect(series.length).toBeGreaterThan(8);
    const missing = series.filter((one) => {
      const [, name, labels = ""] = /^(\w+)(?:\{(.*)\})?$/.exec(one)!;
      if (name === "up") return false;
      const served = text.split("\n").filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`));
      const names = [...labels.matchAll(/(\w+)\s*=/g)].map((m) => m[1]!).filter((label) => label !== "instance" && label !== "job");
      return served.length === 0 || !names.every((label) => served.some((line) => line.includes(`${label}="`)));
    });
    expect(missing, "used by prometheus-rules.test.yaml but not served").toEqual([]);

    const publicAnswer = await fetch(`${server.url}/metrics`);
    expect(publicAnswer.status).toBe(404);
    expect(await publicAnswer.text()).not.toContain("leads_accepted_total");
  } finally {
    server.kill();
    await fake.close();
  }
});

test("the metrics say the queue's state and /healthz stays a bare 200 when the service refuses a lead for good; one error line says so, without personal data", async () => {
  const fake = await startFakeFormService({ port: opsPort(53) });
  fake.setMode("unauthorized");
  const server = serve(opsPort(17), keyed(fake, dataDir(), { METRICS_PORT: String(opsPort(57)) }));
  try {
    await server.listening;
    const metrics = async () => (await fetch(`http://127.0.0.1:${opsPort(57)}/metrics`)).text();
    expect(await metrics()).toMatch(/^leads_parked_now\{[^}]*\} 0$/m);
    expect((await postContact(server.url, "Our confidential launch (parked)")).status).toBe(303);
    await expect.poll(metrics).toMatch(/^leads_parked_now\{[^}]*\} 1$/m);
    expect(await metrics()).toMatch(/^leads_pending\{[^}]*\} 0$/m);
    const response = await fetch(`${server.url}/healthz`);
    expect([response.status, response.headers.get("cache-control"), await response.json()]).toEqual([200, "no-store", { status: "ok" }]);
    expect(events(server.stdout()).filter((e) => e.level === "error")).toEqual([
      expect.objectContaining({ event: "lead_parked", reason: "http", status: 401 }),
    ]);
    expect(server.stdout()).not.toMatch(/confidential launch|Ada Lovelace|ada@example\.com/);
  } finally {
    server.kill();
    await fake.close();
  }
});

test("every alert rule fires in prometheus-rules.test.yaml when it should, with its summary and description tested, and stays quiet when it should not (promtool test rules)", () => {
  const firing = ruleTests().flatMap((t) => (t.alert_rule_test ?? []).flatMap((a) => (a.exp_alerts ?? []).map((alert) => ({ name: a.alertname, ...alert }))));
  // promtool compares the texts only where a test names them: each alert's summary and description, with where it is.
  const tested = new Set(
    firing
      .filter((a) => a.exp_annotations?.summary && a.exp_annotations.description && (a.exp_labels?.container || a.exp_labels?.store || a.exp_labels?.instance))
      .map((a) => a.name),
  );
  expect(
    alertRules()
      .map((r) => r.alert)
      .filter((name) => !tested.has(name)),
    "alert rules no test makes fire with their texts and where",
  ).toEqual([]);
  // Debian's package prometheus (scripts/test.sh installs it); exits non-zero on any failed test.
  const out = execFileSync("promtool", ["test", "rules", "prometheus-rules.test.yaml"], { cwd: REPO, encoding: "utf8" });
  expect(out).toContain("SUCCESS");
});

test("without METRICS_PORT no metrics listener is opened", async () => {
  const server = serve(opsPort(43));
  try {
    await server.listening;
    // Every TCP port the process listens on (ss names the owner of each listening socket).
    const listening = execFileSync("ss", ["-ltnpH"], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes(`pid=${server.child.pid},`))
      .map((line) => Number(/:(\d+)\s/.exec(line)?.[1]));
    expect(listening).toEqual([opsPort(43)]);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  } finally {
    server.kill();
  }
});

function alertRules() {
  const file = parse(readFileSync(join(REPO, "prometheus-rules.yaml"), "utf8")) as {
    groups: { rules: { alert: string; expr: string; annotations: Record<string, string> }[] }[];
  };
  return file.groups.flatMap((g) => g.rules);
}

function ruleTests() {
  const file = parse(readFileSync(join(REPO, "prometheus-rules.test.yaml"), "utf8")) as {
    tests: {
      input_series: { series: string }[];
      alert_rule_test?: {
        alertname: string;
        exp_alerts?: { exp_labels?: Record<string, string>; exp_annotations?: { summary?: string; description?: string } }[];
      }[];
    }[];
  };
  return file.tests;
}
