#!/usr/bin/env node
// geo — simulated geolocation fixes (stdio MCP server).
//
//   node examples/servers/geo.mjs
//
// Tool: simulate_geolocation. Given a point and a radius it returns a
// deterministic pseudo-random position inside that circle (same input, same
// output) plus a made-up nearest landmark. Nothing here is real location
// data. Every parameter is bounds-checked: a bad one gives an isError result
// starting with "invalid parameter: ". Logs to stderr only.
import { createHash } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/server";
import { createLogger, defineTool, requireNumber, runStdio, textResult } from "./lib/shared.mjs";

const log = createLogger("geo");

const EARTH_RADIUS_M = 6_371_008.8;
const MAX_RADIUS_M = 50_000;
const DEFAULT_RADIUS_M = 100;
const LANDMARK_PREFIXES = [
  "星河",
  "银杏",
  "临江",
  "青松",
  "东湖",
  "枫林",
  "望京",
  "金桥",
  "云栖",
  "南湖",
  "翠苑",
  "海岸",
];
const LANDMARK_SUFFIXES = [
  "广场",
  "大厦",
  "公园",
  "购物中心",
  "地铁站",
  "文化中心",
  "体育馆",
  "图书馆",
  "科技园",
  "步行街",
];

const rad = (deg) => (deg * Math.PI) / 180;
const deg = (r) => (r * 180) / Math.PI;

/** Point at `distance` meters from (lat, lng) along `bearing` degrees, on a sphere. */
function destination(lat, lng, distance, bearing) {
  const d = distance / EARTH_RADIUS_M;
  const th = rad(bearing);
  const p1 = rad(lat);
  const l1 = rad(lng);
  const p2 = Math.asin(Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(th));
  const l2 =
    l1 + Math.atan2(Math.sin(th) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * Math.sin(p2));
  const lng2 = ((deg(l2) + 540) % 360) - 180; // normalise to [-180, 180)
  return { lat: deg(p2), lng: lng2 };
}

/** Great-circle distance in meters (haversine). */
function distanceM(a, b) {
  const dp = rad(b.lat - a.lat);
  const dl = rad(b.lng - a.lng);
  const h = Math.sin(dp / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dl / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

function simulate(lat, lng, radius) {
  const digest = createHash("sha256")
    .update(`${lat.toFixed(6)},${lng.toFixed(6)},${radius}`)
    .digest();
  const f = (i) => digest.readUInt32BE(i * 4) / 0xffffffff;
  // Uniform over the disc (sqrt), kept just inside the radius.
  const offset = radius * Math.sqrt(f(0)) * 0.98;
  const bearing = f(1) * 360;
  const fix = destination(lat, lng, offset, bearing);
  const position = { lat: fix.lat, lng: fix.lng }; // not rounded: rounding could push a tiny-radius fix outside the circle
  const offset_m = Math.round(distanceM({ lat, lng }, position) * 10) / 10;
  const accuracy_m = Math.max(3, Math.round(radius * (0.05 + f(2) * 0.2)));
  const landmark = {
    name: `${LANDMARK_PREFIXES[digest[12] % LANDMARK_PREFIXES.length]}${LANDMARK_SUFFIXES[digest[13] % LANDMARK_SUFFIXES.length]}`,
    distance_m: Math.round(20 + f(4) * Math.min(radius, 800)),
  };
  return {
    input: { lat, lng, radius_m: radius },
    position,
    offset_m,
    bearing_deg: Math.round(bearing * 10) / 10,
    accuracy_m,
    nearest_landmark: landmark,
    simulated: true,
  };
}

function buildServer() {
  const server = new McpServer({ name: "geo", version: "1.0.0" });

  defineTool(
    server,
    "simulate_geolocation",
    {
      title: "Simulate a geolocation fix",
      description:
        "Simulate a GPS-style location fix near a given point: returns a deterministic pseudo-random position within " +
        "`radius` meters of (lat, lng), its distance and bearing from the point, an accuracy estimate and a made-up " +
        "nearest landmark. The data is SIMULATED, for testing location-aware flows; the same input always gives the same output.",
      inputSchema: {
        type: "object",
        properties: {
          lat: {
            type: "number",
            minimum: -90,
            maximum: 90,
            description: "Latitude of the center point in decimal degrees, -90 to 90 (e.g. 31.2304).",
          },
          lng: {
            type: "number",
            minimum: -180,
            maximum: 180,
            description: "Longitude of the center point in decimal degrees, -180 to 180 (e.g. 121.4737).",
          },
          radius: {
            type: "number",
            exclusiveMinimum: 0,
            maximum: MAX_RADIUS_M,
            default: DEFAULT_RADIUS_M,
            description: `Search radius in meters, greater than 0 and at most ${MAX_RADIUS_M}. Default ${DEFAULT_RADIUS_M}.`,
          },
        },
        required: ["lat", "lng"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          input: {
            type: "object",
            properties: { lat: { type: "number" }, lng: { type: "number" }, radius_m: { type: "number" } },
            required: ["lat", "lng", "radius_m"],
          },
          position: {
            type: "object",
            properties: { lat: { type: "number" }, lng: { type: "number" } },
            required: ["lat", "lng"],
            description: "The simulated fix, decimal degrees",
          },
          offset_m: { type: "number", description: "Distance from the center point, meters (≤ radius)" },
          bearing_deg: {
            type: "number",
            description: "Direction from the center point, degrees clockwise from north",
          },
          accuracy_m: { type: "integer", description: "Simulated accuracy radius, meters" },
          nearest_landmark: {
            type: "object",
            properties: { name: { type: "string" }, distance_m: { type: "integer" } },
            required: ["name", "distance_m"],
            description: "A made-up landmark name and its distance from the fix",
          },
          simulated: { type: "boolean", const: true },
        },
        required: [
          "input",
          "position",
          "offset_m",
          "bearing_deg",
          "accuracy_m",
          "nearest_landmark",
          "simulated",
        ],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const lat = requireNumber(args, "lat", {
        check: (v) => v >= -90 && v <= 90,
        expectation: "must be a number from -90 to 90 (latitude in decimal degrees)",
      });
      const lng = requireNumber(args, "lng", {
        check: (v) => v >= -180 && v <= 180,
        expectation: "must be a number from -180 to 180 (longitude in decimal degrees)",
      });
      const radius =
        args.radius === undefined
          ? DEFAULT_RADIUS_M
          : requireNumber(args, "radius", {
              check: (v) => v > 0 && v <= MAX_RADIUS_M,
              expectation: `must be a number of meters greater than 0 and at most ${MAX_RADIUS_M} (default ${DEFAULT_RADIUS_M})`,
            });
      const r = simulate(lat, lng, radius);
      const text =
        `Simulated fix within ${radius} m of (${lat}, ${lng}): (${r.position.lat.toFixed(6)}, ${r.position.lng.toFixed(6)}), ` +
        `${r.offset_m} m away at bearing ${r.bearing_deg}°, accuracy ±${r.accuracy_m} m; ` +
        `nearest landmark: ${r.nearest_landmark.name} (${r.nearest_landmark.distance_m} m).`;
      return textResult(`${text}\n${JSON.stringify(r)}`, r);
    },
  );

  return server;
}

runStdio(buildServer, { log });
