#!/usr/bin/env node
// Builds queries/workbook.json (an Azure Monitor workbook) from queries/*.kql, so the workbook and the
// query pack cannot drift apart. Each query's first comment line is its title; its `render` picks the
// chart. Usage: node scripts/build-workbook.js [OUTPUT]   (default queries/workbook.json)
'use strict';
const fs = require('fs');
const path = require('path');
const dir = path.join(__dirname, '..', 'queries');
const order = ['runs', 'throughput-trend', 'latency-trend', 'read-first-byte', 'latest-vs-baseline', 'throttling-share', 'sweep-curve', 'slice-scaling', 'regression-alert'];
const charts = { timechart: 'timechart', linechart: 'linechart', columnchart: 'barchart' };

const items = [{
  type: 1,
  name: 'title',
  content: { json: '# StorageBench\nAzure Table and Blob benchmarks, writes and reads: throughput, latency percentiles (merged histograms; a download\'s time to first byte beside them), throttling and nightly regression verdicts. Queries: `queries/*.kql`.' },
}];
for (const name of order) {
  const text = fs.readFileSync(path.join(dir, name + '.kql'), 'utf8').replace(/\r\n/g, '\n').trimEnd();
  const title = text.split('\n').filter(l => l.startsWith('//')).map(l => l.replace(/^\/\/\s*/, '')).join(' ');
  const render = (text.match(/\|\s*render\s+(\w+)/) || [])[1];
  items.push({
    type: 3,
    name: name,
    content: {
      version: 'KqlItem/1.0',
      query: text,
      size: 0,
      title: title,
      queryType: 0,
      resourceType: 'microsoft.operationalinsights/workspaces',
      visualization: charts[render] || 'table',
    },
  });
}
const workbook = { version: 'Notebook/1.0', items: items, isLocked: false, fallbackResourceIds: [] };
const output = process.argv[2] || path.join(dir, 'workbook.json');
fs.writeFileSync(output, JSON.stringify(workbook, null, 2) + '\n');
console.log('wrote ' + output + ' (' + (items.length - 1) + ' queries)');
