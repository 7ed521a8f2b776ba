// Drives the dashboard of a running `storagebench serve` in real headless Chromium (puppeteer-core, pinned in
// package.json) as a person would: no empty frame before anything is shown, a rejected spec shows its errors by field,
// a run started from the page draws its live chart point by point, its report appears when it ends (the header one
// status word, each report frame as large as its report), two runs are compared, and a third is canceled with the
// page's Cancel button. Prints one JSON line of what
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

// Long enough that the Cancel button is pressed while it writes, whatever the machine's load.
const CancelRunSpec = LiveRunSpec.replace('"durationSeconds": 12', '"durationSeconds": 120');

const StatusWords = /\b(Pending|Running|Completed|Failed|Canceled|Invalid)\b/g;

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
  const statusPolls = new Map();   // GET /api/runs/{id} requests by run id
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
    page.on("request", r => {
      const m = r.method() === "GET" && /\/api\/runs\/([a-z0-9-]+)$/.exec(r.url().split("?")[0]);
      if (m) statusPolls.set(m[1], (statusPolls.get(m[1]) || 0) + 1);
    });
    await page.goto(base, { waitUntil: "load", timeout: 30000 });
    seen.title = await page.title();
    // Before anything is watched or compared, no frame takes room on the page.
    seen.framesShownBeforeUse = await page.$$eval("iframe", fs => fs.filter(f => f.getBoundingClientRect().height > 0).map(f => f.id));

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
    seen.status = await page.$eval("#status", e => e.textContent);
    seen.headerStatusWords = await page.$eval("#live-section h2", h => h.innerText.match(/\b(Pending|Running|Completed|Failed|Canceled|Invalid)\b/g) || []);
    seen.reportFrame = await fitOf(page, "#report");
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
    seen.compareFrames = [await fitOf(page, "#baseline-report"), await fitOf(page, "#candidate-report")];
    await page.$eval("#compare", b => b.scrollIntoView());
    await page.screenshot({ path: path.join(shots, "dashboard-compare.png") });

    // A third run, canceled from the page while it writes: the run ends Canceled, the header says so in one word, elapsed
    // stops within the planned duration, and the page stops polling it.
    await setSpec(page, CancelRunSpec);
    await page.click("#start");
    await page.waitForFunction(ids => !ids.includes(document.getElementById("run-id").textContent)
      && document.querySelectorAll("#live-chart circle.live-point").length >= 1, { timeout: 120000 }, [seen.runId, seen.secondRunId]);
    seen.cancelRunId = await page.$eval("#run-id", e => e.textContent);
    seen.cancelShownWhileRunning = await page.$eval("#cancel", b => !b.hidden && !b.disabled);
    seen.statusWhileRunning = await page.$eval("#status", e => e.textContent);
    await page.click("#cancel");
    await page.waitForFunction(() => /^(Completed|Failed|Canceled|Invalid)$/.test(document.getElementById("status").textContent), { timeout: 120000 });
    seen.canceledStatus = await page.$eval("#status", e => e.textContent);
    seen.canceledHeaderStatusWords = await page.$eval("#live-section h2", h => h.innerText.match(/\b(Pending|Running|Completed|Failed|Canceled|Invalid)\b/g) || []);
    seen.cancelShownAfterEnd = await page.$eval("#cancel", b => !b.hidden);
    seen.canceledElapsed = await page.$eval("#elapsed", e => e.textContent);
    seen.canceledDone = await page.$eval("#done", e => e.textContent);
    seen.canceledPointsX = await page.$$eval("#live-chart circle.live-point title", ts => ts.map(t => parseFloat(t.textContent)));
    const pollsAtEnd = statusPolls.get(seen.cancelRunId);
    seen.canceledReportTitle = await (await frameWith(page, "#report", "h1", seen.cancelRunId)).$eval("h1", h => h.textContent);
    await page.waitForFunction(id => document.querySelector(`#runs tr[data-run="${id}"]`), { timeout: 30000 }, seen.cancelRunId);
    await page.$eval("#live-section", s => s.scrollIntoView());
    await page.screenshot({ path: path.join(shots, "dashboard-canceled.png") });
    seen.statusPollsAfterEnd = statusPolls.get(seen.cancelRunId) - pollsAtEnd;
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(JSON.stringify(seen));
}

async function setSpec(page, text) {
  await page.$eval("#spec", (t, v) => { t.value = v; }, text);
}

/**
 * How a report frame holds its report: the report's size and the frame's (after the frame was fitted to it, bounded),
 * and whether the box around it scrolls sideways when the report is wider than the page.
 */
async function fitOf(page, iframe) {
  await page.waitForFunction(f => { const d = document.querySelector(f).contentDocument; return d && d.readyState === "complete"; }, { timeout: 30000 }, iframe);
  try {
    await page.waitForFunction(f => {
      const frame = document.querySelector(f), root = frame.contentDocument.documentElement;
      return root.scrollHeight <= frame.clientHeight && root.scrollWidth <= frame.clientWidth;
    }, { timeout: 10000 }, iframe);
  } catch {
    // measured as it is: the test says what did not fit
  }
  return page.$eval(iframe, frame => {
    const root = frame.contentDocument.documentElement;
    return { contentWidth: root.scrollWidth, contentHeight: root.scrollHeight, frameWidth: frame.clientWidth, frameHeight: frame.clientHeight,
      boxScrolls: getComputedStyle(frame.parentElement).overflowX === "auto" };
  });
}

async function points(page) {
  return page.$$eval("#live-chart circle.live-point", c => c.length);
}

/**
 * The iframe's document once it shows the selector, whose text includes `text` when given (bounded): a frame that showed
 * an earlier run's report keeps it until the new one has loaded.
 */
async function frameWith(page, iframe, selector, text = "") {
  const handle = await page.waitForSelector(iframe, { timeout: 10000 });
  await page.waitForFunction((f, s, t) => { const d = document.querySelector(f).contentDocument; const e = d && d.querySelector(s); return e && e.textContent.includes(t); },
    { timeout: 60000 }, iframe, selector, text);
  return handle.contentFrame();
}

main().catch(e => {
  console.error(e && e.stack || String(e));
  process.exit(1);
});
