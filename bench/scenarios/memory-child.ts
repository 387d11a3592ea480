// One memory measurement, in a fresh process: connect one client to N stdio echo servers, make some
// calls, collect garbage, and print the process's memory as JSON on stdout. Client id "none" measures
// an empty process started the same way, the floor every client's number includes.
//   node --expose-gc <compiled bench>/scenarios/memory-child.js <client-id> <servers>
import { CLIENT_ENTRIES } from "../clients/index.js";
import { collectGarbage, sleep } from "../processes.js";
import { stdioServers } from "../servers/servers.js";

const CALLS_PER_SERVER = 100;
const MB = 1024 * 1024;

const [id = "none", servers = "8"] = process.argv.slice(2);
const entry = CLIENT_ENTRIES.find((candidate) => candidate.id === id);
let close = async () => {};
if (entry) {
  const client = await entry.load();
  const count = Number(servers);
  const session = await client.connect(stdioServers(client.server, count));
  close = () => session.close();
  for (let i = 0; i < CALLS_PER_SERVER; i += 1) {
    await Promise.all(Array.from({ length: count }, (_, index) => session.echo(index, `ping ${i}`)));
  }
} else if (id !== "none") {
  throw new Error(`unknown client ${id}`);
}
for (let i = 0; i < 3; i += 1) {
  collectGarbage();
  await sleep(50);
}
const usage = process.memoryUsage();
process.stdout.write(
  `${JSON.stringify({ rssMB: usage.rss / MB, heapUsedMB: usage.heapUsed / MB, externalMB: usage.external / MB })}\n`,
);
await close();
