// A 40-tool catalog served by test/fixtures/catalog-server.mjs, for the tool search and nudge tests:
// a few tools with English and Chinese descriptions that questions should find, among generic ones.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { NODE, ROOT } from "../helpers.js";

const obj = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
});

const KNOWN = [
  {
    name: "get_weather_forecast",
    description:
      "Weather forecast for a city: temperature, rain and wind for the next days. 查询城市未来几天的天气预报（气温、降雨、风力）。",
    inputSchema: obj({ city: { type: "string", description: "City name, e.g. 上海" } }, ["city"]),
  },
  {
    name: "get_air_quality",
    description:
      "空气质量指数（AQI）与 PM2.5 实时监测数据，按城区查询。Live air quality index of an urban district.",
    inputSchema: obj({ district: { type: "string", description: "District, e.g. 朝阳区" } }, ["district"]),
  },
  {
    name: "refund_order",
    description: "Refund an order: pay the amount of a delivered order back to the customer's account.",
    inputSchema: obj({ order_id: { type: "string", description: "Order number, e.g. SO00202410" } }, [
      "order_id",
    ]),
  },
  {
    name: "query_recent_orders",
    description: "List a customer's recent orders, newest first.",
    inputSchema: obj({ customer_id: { type: "string" }, days: { type: "integer" } }, ["customer_id"]),
  },
];

const VERBS = ["create", "update", "delete", "archive", "export", "import", "schedule", "approve", "assign"];
const NOUNS = [
  "invoice",
  "ticket",
  "meeting",
  "contract",
  "badge",
  "shipment",
  "campaign",
  "backup",
  "license",
];

/** The catalog's tools: the known ones, then 36 generic `<verb>_<noun>` tools. */
export const CATALOG = [
  ...KNOWN,
  ...VERBS.flatMap((verb) =>
    NOUNS.slice(0, 4).map((noun) => ({
      name: `${verb}_${noun}`,
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${noun} in the back office.`,
      inputSchema: obj({ id: { type: "string", description: `The ${noun}'s id` } }, ["id"]),
    })),
  ),
];

/** A server entry for the catalog (server name `cat`: catalog names are `cat_<tool>`). */
export function catalogServer(tools: readonly unknown[] = CATALOG) {
  const dir = mkdtempSync(path.join(tmpdir(), "switchyard-catalog-"));
  const file = path.join(dir, "tools.json");
  writeFileSync(file, JSON.stringify(tools));
  return { command: NODE, args: [`${ROOT}test/fixtures/catalog-server.mjs`, "--catalog", file] };
}
