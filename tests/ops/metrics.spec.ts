/**
 * What an operator reads: the JSON log and the Prometheus metrics (METRICS_PORT only), with no
 * personal data or key in either; the shipped alert rules, tested with promtool on series a real
 * scrape has. (A parked lead's metrics and line: zoho-crm.spec.) opsPort 40.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { parse } from "yaml";
import { freePort } from "../support/ports";
import { dataDir, events, keyed, postContact, REPO } from "../support/server";
import { opsPort, TEST_ACCESS_KEY } from "../support/sites";
import { startedByEachTest } from "../support/started";

const { fakeService, site } = startedByEachTest();

type Rule = { alert: string; expr: string; annotations: Record<string, string> };
const alertRules = () => (parse(readFileSync(join(REPO, "prometheus-rules.yaml"), "utf8")) as { groups: { rules: Rule[] }[] }).groups.flatMap((g) => g.rules);
type Expected = { exp_labels?: Record<string, string>; exp_annotations?: { summary?: string; description?: string } };
type RuleTest = { input_series: { series: string }[]; alert_rule_test?: { alertname: string; exp_alerts?: Expected[] }[] };
const ruleTests = () => (parse(readFileSync(join(REPO, "prometheus-rules.test.yaml"), "utf8")) as { tests: RuleTest[] }).tests;

test("after one lead, the log says it was stored and delivered, /metrics on METRICS_PORT counts it with the runtime's series and every series the alerts use; the public port answers 404 there; nothing personal or secret in either", async () => {
  const fake = await fakeService();
  const metricsUrl = `http://127.0.0.1:${await freePort()}/metrics`;
  const server = site(opsPort(40), keyed(fake, dataDir(), { METRICS_PORT: new URL(metricsUrl).port, CONTAINER_NAME: "site-under-test" }));
  const typed = "Our confidential product launch needs SEO before 1 March (metrics).";
  await server.listening;
  expect(events(server.stdout()).filter((e) => e.event === "start")).toEqual([
    expect.objectContaining({ level: "info", delivery: expect.objectContaining({ to: "provider" }) }),
  ]);
  expect((await postContact(server.url, typed)).status).toBe(303);
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
  for (const series of [
    /^leads_accepted_total\{[^}]*kind="contact"[^}]*\} 1$/m,
    /^leads_delivered_total\{[^}]*kind="contact"[^}]*\} 1$/m,
    /^lead_delivery_attempt_duration_seconds_count\{[^}]*outcome="delivered"[^}]*\} 1$/m,
    /^leads_pending\{[^}]*\} 0$/m,
    /^nodejs_eventloop_lag_seconds\{[^}]*\} /m,
    /^process_resident_memory_bytes\{[^}]*\} /m,
    /^http_request_duration_seconds_count\{[^}]*route="\/",method="POST",status="303"[^}]*\} 1$/m,
    /^lead_store_failing\{[^}]*\} 0$/m,
    // Why leads are held and from how many address codes, from the first scrape.
    /^leads_held_now\{[^}]*reason="ceiling"[^}]*\} 0$/m,
    /^leads_held_now\{[^}]*reason="address"[^}]*\} 0$/m,
    /^leads_held_addresses\{[^}]*\} 0$/m,
  ])
    expect(text).toMatch(series);
  expect(text).not.toMatch(/confidential|Ada|ada@|no-such-page|example\.com|127\.0\.0\.1/);
  expect(text).not.toContain(TEST_ACCESS_KEY);
  // Every series names the container (CONTAINER_NAME) and the store it reports: on SQLite its own.
  const samples = text.split("\n").filter((line) => line && !line.startsWith("#"));
  expect(samples.filter((line) => !line.includes('container="site-under-test"') || !line.includes('store="site-under-test"'))).toEqual([]);

  // The alert rules and their tests use only series served, with their labels (but those Prometheus adds).
  const queries = (r: Rule) => Object.values(r.annotations).flatMap((t) => [...t.matchAll(/printf "([^"]*)"/g)].map((m) => m[1]!));
  const named = alertRules().flatMap((r) =>
    [r.expr, ...queries(r)].flatMap((query) => [...query.matchAll(/\b(?:leads?|http|nodejs|process|form)_\w+/g)].map((m) => m[0])),
  );
  expect(named).toEqual(expect.arrayContaining(["leads_held_addresses", "leads_held_total", "process_start_time_seconds"]));
  expect(named.length).toBeGreaterThan(6);
  const unserved = named.filter((name) => !new RegExp(`^${name}[ {]`, "m").test(text));
  expect(unserved, "named in prometheus-rules.yaml but not served").toEqual([]);
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
  expect([publicAnswer.status, (await publicAnswer.text()).includes("leads_accepted_total")]).toEqual([404, false]);

  // The log, once the server has stopped: a line when the lead was stored and when delivered, its reference the one the service got.
  server.child.kill("SIGTERM");
  await server.exited;
  const [stored] = events(server.stdout()).filter((e) => e.event === "lead_stored");
  expect(stored).toMatchObject({ level: "info", kind: "contact", id: expect.stringMatching(/^\d{8}-[0-9A-Z]{8}$/) });
  expect(events(server.stdout()).find((e) => e.event === "lead_delivered")).toMatchObject({ id: stored!.id, provider: "web3forms", status: 200, attempt: 1 });
  expect((fake.accepted("(metrics)")[0] as { message: string }).message).toContain(`Reference: ${stored!.id as string}`);
  expect(server.stdout() + server.stderr()).not.toMatch(new RegExp(`${TEST_ACCESS_KEY}|confidential product launch|Ada Lovelace|ada@example.com`));
});

test("every alert rule fires in prometheus-rules.test.yaml when it should, with its summary and description tested, and stays quiet when it should not (promtool test rules)", () => {
  const firing = ruleTests().flatMap((t) => (t.alert_rule_test ?? []).flatMap((a) => (a.exp_alerts ?? []).map((alert) => ({ name: a.alertname, ...alert }))));
  // promtool compares the texts only where a test names them: each alert's summary and description, with where it is.
  const where = (a: Expected) => a.exp_labels?.container || a.exp_labels?.store || a.exp_labels?.instance;
  const tested = new Set(firing.filter((a) => a.exp_annotations?.summary && a.exp_annotations.description && where(a)).map((a) => a.name));
  const untested = alertRules().flatMap((r) => (tested.has(r.alert) ? [] : [r.alert]));
  expect(untested, "alert rules no test makes fire with their texts and where").toEqual([]);
  // Debian's package prometheus (scripts/test.sh installs it); exits non-zero on any failed test.
  expect(execFileSync("promtool", ["test", "rules", "prometheus-rules.test.yaml"], { cwd: REPO, encoding: "utf8" })).toContain("SUCCESS");
});
