// switchyard/testing: helpers for testing agents built on Switchyard, without a real model.
export {
  type ReceivedRequest,
  type ScriptedOpenAIServer,
  startScriptedOpenAIServer,
} from "./openai-server.js";
export { ScriptedModel } from "./scripted-model.js";
export type {
  Script,
  ScriptedAnswer,
  ScriptedFailure,
  ScriptedHang,
  ScriptedReply,
  ScriptedToolCall,
} from "./scripted-reply.js";
