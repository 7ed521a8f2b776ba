// Drives the dashboard of a running `storagebench serve` in real headless Chromium (puppeteer-core, pinned in
// package.json) as a person would: a rejected spec shows its errors by field, a run started from the page draws its
// live chart point by point, its report appears when it ends, and two runs are compared. Prints one JSON line of what
// it saw (DashboardTests asserts on it) and writes a screenshot of each state to SCREENSHOT_DIR.
// Every wait is on page state, bounded; nothing is timed by sleeping.
//   node tests/StorageBench.Tests/Dashboard/dashboard-browser.js http://127.0.0.1:PORT/ SCREENSHOT_DIR
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

const [base, shots] = process.argv.slice(2);
if (!base || !shots) {
  console.error("usage: dashboard-browser.js BASE_URL SCREENSHOT_DIR");
  process.exit(2);
}

const LiveRunSpec = `{
  "scenario": "dashboard",
  "startDelaySeconds": 1,
  "tableInsert": { "entitySizeBytes": 512, "batchSize": 50, "concurrency": 2, "slices": 2, "durationSeconds": 12 }
}`;

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "storagebench-dashboard-"));
  const browser = await puppeteer.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", `--user-data-dir=${profile}`],
  });
  // The browser itself logs every 4xx answer as a console error; the rejected spec's 400 is the one the page expects.
  const seen = { consoleErrors: [], expectedErrors: [], requestsOffHost: [] };
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    page.on("console", m => {
      if (m.type() !== "error") return;
      const expected = m.text().includes("status of 400") && m.location().url === base + "api/runs";
      (expected ? seen.expectedErrors : seen.consoleErrors).push(m.text() + " (" + m.location().url + ")");
    });
    page.on("pageerror", e => seen.consoleErrors.push("page error: " + e.message));
    // Self-contained: every request goes to the host that served the page.
    page.on("request", r => { if (!r.url().startsWith(base) && !/^(about|data):/.test(r.url())) seen.requestsOffHost.push(r.url()); });
    await page.goto(base, { waitUntil: "load", timeout: 30000 });
    seen.title = await page.title();

    // A rejected spec: the API's errors, by field; nothing starts.
    await setSpec(page, '{ "scenario": "dashboard", "tableInsert": { "batchSize": 150 } }');
    await page.click("#start");
    await page.waitForSelector("#errors li", { timeout: 30000 });
    seen.errors = await page.$$eval("#errors li", lis => lis.map(li => ({ field: li.dataset.field, text: li.textContent })));
    seen.liveShownAfterRejection = await page.$eval("#live-section", s => !s.hidden);
    await page.screenshot({ path: path.join(shots, "dashboard-errors.png") });

    // A run started from the page: its live chart gains points while it runs.
    await setSpec(page, LiveRunSpec);
    await page.click("#start");
    await page.waitForFunction(() => document.querySelectorAll("#live-chart circle.live-point").length >= 2, { timeout: 90000 });
    seen.firstPoints = await points(page);
    await page.waitForFunction(n => document.querySelectorAll("#live-chart circle.live-point").length > n, { timeout: 60000 }, seen.firstPoints);
    seen.laterPoints = await points(page);
    // Latency so far, from the slices' merged histograms, with the number of requests behind it.
    await page.waitForFunction(() => /requests\)$/.test(document.querySelector("#latency").textContent), { timeout: 60000 });
    seen.liveLatency = await page.$eval("#latency", e => e.textContent);
    seen.liveRate = await page.$eval("#rate", e => e.textContent);
    seen.liveUnit = await page.$eval("#rate-unit", e => e.textContent);
    seen.runId = await page.$eval("#run-id", e => e.textContent);
    await page.screenshot({ path: path.join(shots, "dashboard-live.png") });

    // When it ends: the finished report, the same summary.html as storagebench run writes.
    await page.waitForFunction(() => !document.getElementById("report-section").hidden, { timeout: 180000 });
    const report = await frameWith(page, "#report", "svg.chart");
    seen.phase = await page.$eval("#phase", e => e.textContent);
    seen.reportTitle = await report.$eval("h1", h => h.textContent);
    seen.reportCharts = await report.$$eval("svg.chart", s => s.length);
    await page.$eval("#report-section", s => s.scrollIntoView());
    await page.screenshot({ path: path.join(shots, "dashboard-report.png") });

    // A second run of the same spec (runs of different specs are not judged), then the two side by side with the verdicts.
    await page.click("#start");
    await page.waitForFunction(id => document.getElementById("run-id").textContent !== id && !document.getElementById("report-section").hidden,
      { timeout: 180000 }, seen.runId);
    seen.secondRunId = await page.$eval("#run-id", e => e.textContent);
    await page.waitForFunction(ids => ids.every(id => document.querySelector(`#runs tr[data-run="${id}"]`)), { timeout: 30000 }, [seen.runId, seen.secondRunId]);
    await page.select("#baseline", seen.runId);
    await page.select("#candidate", seen.secondRunId);
    await page.click("#compare");
    await page.waitForFunction(() => document.querySelector("#verdict b") || document.querySelector("#compare-message.bad"), { timeout: 30000 });
    seen.compareMessage = await page.$eval("#compare-message", e => e.textContent);
    seen.verdict = await page.$eval("#verdict", e => e.textContent);
    seen.compareRows = await page.$$eval("#compare-table tbody tr", rows => rows.map(r => [...r.cells].map(c => c.textContent)));
    await frameWith(page, "#candidate-report", "svg.chart");
    await page.$eval("#compare", b => b.scrollIntoView());
    await page.screenshot({ path: path.join(shots, "dashboard-compare.png") });
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(JSON.stringify(seen));
}

async function setSpec(page, text) {
  await page.$eval("#spec", (t, v) => { t.value = v; }, text);
}

async function points(page) {
  return page.$$eval("#live-chart circle.live-point", c => c.length);
}

/** The iframe's document once it shows the selector (bounded). */
async function frameWith(page, iframe, selector) {
  const handle = await page.waitForSelector(iframe, { timeout: 10000 });
  await page.waitForFunction((f, s) => { const d = document.querySelector(f).contentDocument; return d && d.querySelector(s); }, { timeout: 60000 }, iframe, selector);
  return handle.contentFrame();
}

main().catch(e => {
  console.error(e && e.stack || String(e));
  process.exit(1);
});
