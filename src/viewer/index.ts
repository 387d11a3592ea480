// The trace viewer (`switchyard ui`): a local web page over the run store. The CLI's entry into it.
export {
  DEFAULT_VIEWER_HOST,
  DEFAULT_VIEWER_POLL_INTERVAL_MS,
  DEFAULT_VIEWER_PORT,
} from "../config/defaults.js";
export type {
  CallStats,
  CallWire,
  ListedRun,
  RunFilter,
  ViewedCall,
  ViewedRun,
  ViewerSources,
} from "./api.js";
export { startViewer, type Viewer, type ViewerOptions } from "./server.js";
export { WireTraceFile } from "./wire.js";
