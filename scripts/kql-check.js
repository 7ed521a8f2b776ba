#!/usr/bin/env node
// Parses and semantically checks KQL against the Application Insights workspace schema (AppEvents)
// with Kusto.Language (the npm build of Microsoft's Kusto.Language, @kusto/language-service-next).
// Usage: node scripts/kql-check.js [--reads] FILE.kql|FILE.json ...   (a .json workbook: every query in it)
// Prints one JSON object per query: {file, query, diagnostics:[{severity, message, start}]}; exits 1
// when any query has an error or a warning. With --reads each object also names what the query reads from the
// telemetry: its tables, the event names it selects (Name == "..."), and the Properties.X and Measurements.X it
// uses, so a test can check them against what the tool sends.
'use strict';
const fs = require('fs');
const path = require('path');
const lib = path.join(__dirname, '..', 'node_modules', '@kusto', 'language-service-next');
require(path.join(lib, 'bridge.js'));
require(path.join(lib, 'Kusto.Language.Bridge.js'));
const K = Kusto.Language, S = K.Symbols;

// The columns every workspace-based Application Insights table shares after its own.
const common = [
  'OperationName:string', 'OperationId:string', 'ParentId:string', 'SyntheticSource:string', 'SessionId:string',
  'UserId:string', 'UserAuthenticatedId:string', 'UserAccountId:string', 'AppVersion:string', 'AppRoleName:string',
  'AppRoleInstance:string', 'ClientType:string', 'ClientModel:string', 'ClientOS:string', 'ClientIP:string',
  'ClientCity:string', 'ClientStateOrProvince:string', 'ClientCountryOrRegion:string', 'ClientBrowser:string',
  'ResourceGUID:string', 'IKey:string', 'SDKVersion:string', 'ItemCount:int', 'ReferencedItemId:string',
  'ReferencedType:string', 'SourceSystem:string', 'Type:string', '_ResourceId:string',
];
// The workspace-based Application Insights table for custom events (Log Analytics "AppEvents").
const appEvents = new S.TableSymbol.$ctor7('AppEvents', '(' + [
  'TenantId:string', 'TimeGenerated:datetime', 'Name:string', 'Properties:dynamic', 'Measurements:dynamic',
  ...common,
].join(', ') + ')', null);
// ILogger entries: AppTraces, or AppExceptions when logged with an exception (Properties.EventId, Properties.CategoryName).
const appTraces = new S.TableSymbol.$ctor7('AppTraces', '(' + [
  'TenantId:string', 'TimeGenerated:datetime', 'Message:string', 'SeverityLevel:int', 'Properties:dynamic', 'Measurements:dynamic',
  ...common,
].join(', ') + ')', null);
const appExceptions = new S.TableSymbol.$ctor7('AppExceptions', '(' + [
  'TenantId:string', 'TimeGenerated:datetime', 'ProblemId:string', 'HandledAt:string', 'ExceptionType:string', 'Assembly:string',
  'Method:string', 'OuterType:string', 'OuterMessage:string', 'OuterAssembly:string', 'OuterMethod:string', 'InnermostType:string',
  'InnermostMessage:string', 'InnermostAssembly:string', 'InnermostMethod:string', 'SeverityLevel:int', 'Details:dynamic',
  'Properties:dynamic', 'Measurements:dynamic',
  ...common,
].join(', ') + ')', null);
const db = new S.DatabaseSymbol.ctor('workspace', [appEvents, appTraces, appExceptions]);
const globals = K.GlobalState.Default.WithCluster(new S.ClusterSymbol.ctor('loganalytics', [db])).WithDatabase(db);

function queriesOf(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (!file.endsWith('.json')) return [text];
  const found = [];
  (function walk(node) {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      if (typeof node.query === 'string') found.push(node.query);
      Object.values(node).forEach(walk);
    }
  })(JSON.parse(text));
  return found;
}

function walk(node, visit) {
  if (!node) return;
  visit(node);
  for (let i = 0; i < node.ChildCount; i++) walk(node.GetChild(i), visit);
}

// What an analyzed query reads: tables it names, event names it compares Name with, and the dynamic columns' members.
function readsOf(code) {
  const tables = new Set(), events = new Set(), properties = new Set(), measurements = new Set();
  walk(code.Syntax, n => {
    if (n instanceof K.Syntax.NameReference && n.ReferencedSymbol instanceof S.TableSymbol) tables.add(n.SimpleName);
    if (n instanceof K.Syntax.BinaryExpression && n.Operator.Text === '==' && n.Left instanceof K.Syntax.NameReference
      && n.Left.SimpleName === 'Name' && n.Right instanceof K.Syntax.LiteralExpression) events.add(String(n.Right.LiteralValue));
    // Properties.x, or Properties["x"]
    const member = n instanceof K.Syntax.PathExpression && n.Selector instanceof K.Syntax.NameReference ? n.Selector.SimpleName
      : n instanceof K.Syntax.ElementExpression && n.Selector.Expression instanceof K.Syntax.LiteralExpression ? String(n.Selector.Expression.LiteralValue)
      : null;
    if (member !== null && n.Expression instanceof K.Syntax.NameReference) {
      if (n.Expression.SimpleName === 'Properties') properties.add(member);
      if (n.Expression.SimpleName === 'Measurements') measurements.add(member);
    }
  });
  return { tables: [...tables].sort(), events: [...events].sort(), properties: [...properties].sort(), measurements: [...measurements].sort() };
}

let failed = false;
const reads = process.argv[2] === '--reads';
const files = process.argv.slice(reads ? 3 : 2);
if (files.length === 0) { console.error('usage: kql-check.js FILE...'); process.exit(2); }
for (const file of files) {
  for (const query of queriesOf(file)) {
    const code = K.KustoCode.ParseAndAnalyze(query, globals);
    const d = code.GetDiagnostics();
    const diagnostics = [];
    for (let i = 0; i < d.Count; i++) {
      const x = d.getItem(i);
      diagnostics.push({ severity: String(x.Severity), message: x.Message, start: x.Start });
    }
    if (diagnostics.length > 0) failed = true;
    const line = { file: path.basename(file), query: query.split('\n').find(l => l && !l.startsWith('//')) || '', diagnostics };
    console.log(JSON.stringify(reads ? { ...line, ...readsOf(code) } : line));
  }
}
process.exit(failed ? 1 : 0);
