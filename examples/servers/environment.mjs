#!/usr/bin/env node
// environment — simulated environmental monitoring for a fixed set of urban
// districts (stdio MCP server).
//
//   node examples/servers/environment.mjs
//
// Tool: get_environment_status. The readings are NOT real: they are derived
// from a SHA-256 hash of the area code and today's date (UTC) plus a simple
// per-city climate baseline, so they are stable within a day and change from
// day to day. Logs to stderr only.
import { createHash } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/server";
import { createLogger, defineTool, ParamError, requireString, runStdio, textResult } from "./lib/shared.mjs";

const log = createLogger("environment");

// Climate baselines: annual mean temperature and seasonal amplitude (°C),
// typical humidity (%), typical PM2.5 (µg/m³), typical daytime noise (dB).
const AREAS = {
  "BJ-CY": { name: "北京市朝阳区", meanTemp: 13, amplitude: 15, humidity: 50, pm25: 45, noise: 60 },
  "SH-PD": { name: "上海市浦东新区", meanTemp: 17, amplitude: 11, humidity: 72, pm25: 33, noise: 58 },
  "GZ-TH": { name: "广州市天河区", meanTemp: 22.5, amplitude: 7, humidity: 77, pm25: 28, noise: 61 },
  "SZ-NS": { name: "深圳市南山区", meanTemp: 23, amplitude: 6, humidity: 75, pm25: 22, noise: 57 },
  "HZ-XH": { name: "杭州市西湖区", meanTemp: 17, amplitude: 12, humidity: 72, pm25: 34, noise: 52 },
  "CD-WH": { name: "成都市武侯区", meanTemp: 16.5, amplitude: 9, humidity: 80, pm25: 48, noise: 59 },
};
const CODES = Object.keys(AREAS);

// China HJ 633-2012 breakpoints for PM2.5 (24-hour mean) -> IAQI.
const PM25_BREAKS = [
  [0, 35, 0, 50],
  [35, 75, 50, 100],
  [75, 115, 100, 150],
  [115, 150, 150, 200],
  [150, 250, 200, 300],
  [250, 350, 300, 400],
  [350, 500, 400, 500],
];
const AQI_LEVELS = [
  [50, "优 (excellent)"],
  [100, "良 (good)"],
  [150, "轻度污染 (lightly polluted)"],
  [200, "中度污染 (moderately polluted)"],
  [300, "重度污染 (heavily polluted)"],
  [Infinity, "严重污染 (severely polluted)"],
];

function iaqiPm25(pm25) {
  for (const [cLo, cHi, iLo, iHi] of PM25_BREAKS) {
    if (pm25 <= cHi) return Math.round(((iHi - iLo) / (cHi - cLo)) * (pm25 - cLo) + iLo);
  }
  return 500;
}

const round1 = (x) => Math.round(x * 10) / 10;
const clamp = (x, lo, hi) => Math.min(hi, Math.max(lo, x));

/** Deterministic simulated readings for one area on one (UTC) date. */
function simulate(code, date) {
  const area = AREAS[code];
  const digest = createHash("sha256").update(`${code}|${date}`).digest();
  const f = (i) => digest.readUInt16BE(i * 2) / 65535; // 16 fractions in [0, 1]
  const start = Date.UTC(Number(date.slice(0, 4)), 0, 1);
  const dayOfYear = Math.floor((Date.parse(`${date}T00:00:00Z`) - start) / 86_400_000);
  const seasonal = area.meanTemp - area.amplitude * Math.cos((2 * Math.PI * (dayOfYear - 15)) / 365);
  const temperature_c = round1(seasonal + (f(0) - 0.5) * 6);
  const humidity_pct = Math.round(clamp(area.humidity + (f(1) - 0.5) * 30, 15, 98));
  const pm25_ugm3 = Math.round(area.pm25 * (0.4 + f(2) * 1.4));
  const aqi = Math.max(iaqiPm25(pm25_ugm3), Math.round(20 + f(3) * 30)); // other pollutants keep a floor
  const aqi_level = AQI_LEVELS.find(([max]) => aqi <= max)[1];
  const noise_db = round1(area.noise + (f(4) - 0.5) * 14);
  let status = "good";
  let advice = "Conditions are good for outdoor activities.";
  if (aqi > 150 || noise_db > 70) {
    status = "poor";
    advice = "Limit outdoor activities; sensitive groups should stay indoors.";
  } else if (aqi > 100 || noise_db > 65 || temperature_c > 35 || temperature_c < -10) {
    status = "fair";
    advice = "Sensitive groups should reduce prolonged outdoor exertion.";
  }
  return {
    area_code: code,
    area_name: area.name,
    date,
    simulated: true,
    temperature_c,
    humidity_pct,
    aqi,
    aqi_level,
    pm25_ugm3,
    noise_db,
    status,
    advice,
  };
}

function buildServer() {
  const server = new McpServer({ name: "environment", version: "1.0.0" });

  defineTool(
    server,
    "get_environment_status",
    {
      title: "Get environment status",
      description:
        "Get today's environmental status of an urban district: temperature, humidity, air quality index (AQI, China " +
        "HJ 633 scale) with its level, PM2.5, daytime noise level and an overall status with advice. " +
        `The data is SIMULATED (stable for a given area within a day). Supported area codes: ${CODES.map((c) => `${c} ${AREAS[c].name}`).join(", ")}.`,
      inputSchema: {
        type: "object",
        properties: {
          area_code: {
            type: "string",
            enum: CODES,
            description: `District code, one of: ${CODES.map((c) => `${c} (${AREAS[c].name})`).join(", ")}. Case-insensitive.`,
          },
        },
        required: ["area_code"],
        additionalProperties: false,
      },
      outputSchema: {
        type: "object",
        properties: {
          area_code: { type: "string" },
          area_name: { type: "string" },
          date: { type: "string", description: "The day the readings are for, ISO date (UTC)" },
          simulated: { type: "boolean", const: true },
          temperature_c: { type: "number", description: "Air temperature, °C" },
          humidity_pct: { type: "integer", description: "Relative humidity, %" },
          aqi: { type: "integer", description: "Air quality index (0-500, China HJ 633)" },
          aqi_level: { type: "string", description: "AQI category, Chinese with English gloss" },
          pm25_ugm3: { type: "integer", description: "PM2.5 concentration, µg/m³" },
          noise_db: { type: "number", description: "Daytime equivalent noise level, dB(A)" },
          status: { type: "string", enum: ["good", "fair", "poor"] },
          advice: { type: "string" },
        },
        required: [
          "area_code",
          "area_name",
          "date",
          "simulated",
          "temperature_c",
          "humidity_pct",
          "aqi",
          "aqi_level",
          "pm25_ugm3",
          "noise_db",
          "status",
          "advice",
        ],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const expectation = `must be one of ${CODES.join(", ")}`;
      const code = requireString(args, "area_code", { expectation, maxLength: 32 }).toUpperCase();
      if (!AREAS[code]) {
        throw new ParamError(
          `invalid parameter: area_code "${args.area_code}" is not a known area; valid codes: ${CODES.map((c) => `${c} (${AREAS[c].name})`).join(", ")}`,
        );
      }
      const r = simulate(code, new Date().toISOString().slice(0, 10));
      const text =
        `${r.area_code} ${r.area_name}, ${r.date} (simulated): ${r.temperature_c} °C, humidity ${r.humidity_pct}%, ` +
        `AQI ${r.aqi} ${r.aqi_level}, PM2.5 ${r.pm25_ugm3} µg/m³, noise ${r.noise_db} dB — status ${r.status}. ${r.advice}`;
      return textResult(`${text}\n${JSON.stringify(r)}`, r);
    },
  );

  return server;
}

runStdio(buildServer, { log });
