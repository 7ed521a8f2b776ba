// The peer of a short storagebench run: one process that creates a table, inserts N entities of 1 KB in entity group
// transactions of 100 (one partition), reads them back by count, and deletes the table, as storagebench's run does.
// The connection string comes from the environment (PEER_CONNECTION_STRING), never the command line.
//   node insert.mjs N
import { TableClient } from "@azure/data-tables";

const count = Number(process.argv[2] ?? 200);
const client = TableClient.fromConnectionString(process.env.PEER_CONNECTION_STRING, `peer${Date.now()}`, { allowInsecureConnection: true });
await client.createTable();
const payload = "x".repeat(1024);
for (let first = 0; first < count; first += 100) {
  const actions = [];
  for (let i = first; i < Math.min(count, first + 100); i++) {
    actions.push(["create", { partitionKey: "p0", rowKey: String(i).padStart(8, "0"), data: payload }]);
  }
  await client.submitTransaction(actions);
}
let found = 0;
for await (const _ of client.listEntities({ queryOptions: { select: ["RowKey"] } })) {
  found++;
}
await client.deleteTable();
if (found !== count) {
  console.error(`found ${found} of ${count} entities`);
  process.exit(1);
}
