// The JS SDK peer of BENCHMARKS.md section 5f: downloads blobs in ranges with a fixed number in flight, as storagebench's
// blobDownload slice does (a blob's ranges together, the next blob's as the last ones of the previous finish), and reads
// every body to its end. The connection string comes from the environment (never the command line).
// Usage: PEER_CONNECTION_STRING=... node download.js CONTAINER RANGE_BYTES IN_FLIGHT BLOB...
// Prints one JSON line: {"bytes", "seconds"} over its downloads alone (its window: first request to last byte).
const { BlobServiceClient } = require("@azure/storage-blob");

async function main() {
  const [container, rangeArg, inFlightArg, ...blobs] = process.argv.slice(2);
  const rangeBytes = Number(rangeArg), inFlight = Number(inFlightArg);
  const service = BlobServiceClient.fromConnectionString(process.env.PEER_CONNECTION_STRING);
  const client = service.getContainerClient(container);
  const work = [];
  for (const name of blobs) {
    const blob = client.getBlobClient(name);
    const length = (await blob.getProperties()).contentLength;
    for (let offset = 0; offset < length; offset += rangeBytes) {
      work.push({ blob, offset, count: Math.min(rangeBytes, length - offset) });
    }
  }
  let next = 0, bytes = 0;
  const started = process.hrtime.bigint();
  async function loop() {
    while (next < work.length) {
      const { blob, offset, count } = work[next++];
      const response = await blob.download(offset, count);
      for await (const chunk of response.readableStreamBody) {
        bytes += chunk.length;
      }
    }
  }
  await Promise.all(Array.from({ length: inFlight }, loop));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  process.stdout.write(JSON.stringify({ bytes, seconds }) + "\n");
}

main().catch(e => { process.stderr.write(String(e && e.message || e) + "\n"); process.exit(1); });
