// The gateway: the whole fleet of a Switchyard as one MCP server (stdio, Streamable HTTP).

export {
  DEFAULT_GATEWAY_HOST,
  DEFAULT_GATEWAY_MAX_BODY_BYTES,
  DEFAULT_GATEWAY_MODE,
  DEFAULT_GATEWAY_PATH,
} from "../config/defaults.js";
export { type RequestOrigin, withRequestOrigin } from "../fleet/request-origin.js";
export {
  createGatewayAuth,
  type GatewayAuth,
  type GatewayAuthOptions,
  PROTECTED_RESOURCE_METADATA_PATH,
} from "./auth.js";
export {
  type Authenticate,
  createGateway,
  type Gateway,
  type GatewayMode,
  type GatewayOptions,
} from "./gateway.js";
export { type HttpListener, type ListenOptions, listenHttp } from "./http.js";
export { createHttpGuard, type HttpGuardOptions, isLoopbackHost } from "./http-guard.js";
export { ClientRelay, type ServerLog } from "./relay.js";
export { CALL_TOOL_NAME, SEARCH_TOOLS_NAME } from "./search.js";
