// Tries `storagebench serve` from another site in real headless Chromium (puppeteer-core, pinned in package.json), as a
// page the user visits would: a cross-site form post, cross-site fetches without a preflight (form-encoded, text/plain, a
// body with no type, a cancel), and DNS rebinding (a name of the attacker's resolved to 127.0.0.1 by the browser's own
// resolver rules); then the dashboard and its same-origin calls. Prints one JSON line of the statuses and answers the
// browser saw on the wire (CrossOriginTests asserts on it). Every wait is on page or network state, bounded.
//   node tests/StorageBench.Tests/Dashboard/cross-origin-browser.js SERVE_BASE_URL OTHER_SITE_BASE_URL
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const puppeteer = require("puppeteer-core");

const [serve, other] = process.argv.slice(2);
if (!serve || !other) {
  console.error("usage: cross-origin-browser.js SERVE_BASE_URL OTHER_SITE_BASE_URL");
  process.exit(2);
}
const port = new URL(serve).port;
const rebound = `http://rebind.evil.example:${port}/`;

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "storagebench-cross-origin-"));
  const browser = await puppeteer.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--no-proxy-server",
      "--disable-component-update", "--disable-sync", `--user-data-dir=${profile}`,
      "--host-resolver-rules=MAP rebind.evil.example 127.0.0.1"],
  });
  const seen = { crossSite: {} };
  try {
    const page = await browser.newPage();
    // What reached serve and what it answered, from the browser's network log: an opaque (no-cors) answer has a status there too.
    const answers = new Map();
    page.on("response", async r => {
      if (!r.url().startsWith(serve) && !r.url().startsWith(rebound)) return;
      let body = "";
      try { body = await r.text(); } catch { /* a redirect or an aborted body has none */ }
      answers.set(new URL(r.url()).searchParams.get("attempt") || r.url(), { status: r.status(), body });
    });

    // Another site's page: fetches that a browser sends without a preflight (mode no-cors), each tagged in its query
    // (serve ignores ?attempt=) to find its answer: a header would make them ask first, or be dropped.
    await page.goto(other + "attack", { waitUntil: "load", timeout: 30000 });
    await page.evaluate(async target => {
      const spec = '{ "scenario": "evil", "tableInsert": { "batchSize": 150 } }';
      const send = (attempt, route, init) => fetch(`${target}${route}?attempt=${attempt}`, { ...init, mode: "no-cors" }).catch(() => {});
      await send("form-encoded", "api/runs", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: spec });
      await send("text-plain", "api/runs", { method: "POST", headers: { "Content-Type": "text/plain" }, body: spec });
      await send("no-type", "api/runs", { method: "POST", body: new Blob([spec]) });
      await send("cancel", "api/runs/some-run/cancel", { method: "POST" });
    }, serve);
    await waitFor(() => ["form-encoded", "text-plain", "no-type", "cancel"].every(a => answers.has(a)) || null, "the cross-site fetches' answers");
    for (const a of ["form-encoded", "text-plain", "no-type", "cancel"]) seen.crossSite[a] = answers.get(a);

    // A cross-site form, as a page submits it: the browser navigates to serve's answer.
    await page.goto(other + "form", { waitUntil: "load", timeout: 30000 });
    const [formAnswer] = await Promise.all([
      page.waitForNavigation({ waitUntil: "load", timeout: 30000 }),
      page.evaluate(() => document.forms[0].submit()),
    ]);
    seen.form = { status: formAnswer.status(), body: await formAnswer.text() };

    // DNS rebinding: the attacker's name now resolves to 127.0.0.1, so the browser sees serve as that site, same-origin.
    const rebind = await page.goto(rebound + "api/runs", { waitUntil: "load", timeout: 30000 });
    seen.rebind = { status: rebind.status(), body: await rebind.text() };

    // serve's own page and its same-origin calls: served by the API (a rejected spec, a bad id), not refused.
    const dashboard = await page.goto(serve, { waitUntil: "load", timeout: 30000 });
    seen.dashboard = { status: dashboard.status(), title: await page.title() };
    seen.sameOrigin = await page.evaluate(async () => {
      const call = async (url, init) => { const r = await fetch(url, init); return { status: r.status, body: await r.text() }; };
      return {
        post: await call("api/runs", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{ "scenario": "own", "tableInsert": { "batchSize": 150 } }' }),
        get: await call("api/runs/Not_An_Id", {}),
      };
    });
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(JSON.stringify(seen));
}

async function waitFor(check, what) {
  const deadline = Date.now() + 30000;
  while (Date.now() < deadline) {
    const value = check();
    if (value) return value;
    await new Promise(r => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

main().catch(e => { console.error(e.stack || String(e)); process.exit(1); });
