#!/usr/bin/env node
// The bench's knee server: latency flat up to 8 calls in flight, then base × (n / 8)² — a server past
// its capacity, whose throughput falls as load grows. The test fixture is the one implementation
// (flags: --base-ms, --knee, --exponent); see test/fixtures/knee-server.mjs.
import "../../test/fixtures/knee-server.mjs";
