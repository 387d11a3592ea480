// Seed 000's LangGraph agent over the example fleet, with Switchyard underneath: a StateGraph with an
// agent node, a tools node and a max-steps router. The tools are Switchyard's catalog as LangChain
// tools (switchyard/langchain), so every call goes through its pipeline (validation, policy, breaker,
// bulkhead, retries, records), and each turn is offered only what the router picks for the question.
//
//   OPENAI_API_KEY=… node examples/langgraph.mjs ["question"]
//   OPENAI_BASE_URL=http://127.0.0.1:8000/v1 SWITCHYARD_MODEL=qwen2.5 node examples/langgraph.mjs
//
// Needs @langchain/core, @langchain/langgraph and @langchain/openai installed beside switchyard.
import { fileURLToPath } from "node:url";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { ChatOpenAI } from "@langchain/openai";
import { Switchyard } from "switchyard";
import { langchainTools, toolSelectorFor } from "switchyard/langchain";

/** The seed's bound: past five tool rounds, the graph ends whatever the model wants. */
const MAX_STEPS = 5;
const QUESTION = "查一下 C10001 最近 7 天的订单，然后根据第一笔订单的商品名称搜索相关售后政策";

if (!process.env.OPENAI_API_KEY && !process.env.OPENAI_BASE_URL) {
  console.error(
    "langgraph example: no model configured. Set OPENAI_API_KEY (and SWITCHYARD_MODEL), or OPENAI_BASE_URL for an OpenAI-compatible server.",
  );
  process.exit(2);
}

const yard = await Switchyard.fromFile(fileURLToPath(new URL("fleet.json", import.meta.url)));
const tools = langchainTools(yard);
const selectTools = toolSelectorFor(yard);
const model = new ChatOpenAI({
  model: process.env.SWITCHYARD_MODEL || "gpt-4o-mini",
  temperature: 0,
  apiKey: process.env.OPENAI_API_KEY || "not-needed",
  configuration: process.env.OPENAI_BASE_URL ? { baseURL: process.env.OPENAI_BASE_URL } : {},
});

const AgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  steps: Annotation({ reducer: (_, next) => next, default: () => 0 }),
});

/** The agent node: the model, offered this turn's routed tools. */
async function agent(state) {
  const offered = await selectTools(state.messages);
  const reply = await model.bindTools(offered).invoke(state.messages);
  return { messages: [reply], steps: state.steps + 1 };
}

/** The max-steps router: tools while the model asks for them and the bound allows, else the end. */
function shouldContinue(state) {
  const last = state.messages.at(-1);
  return last?.tool_calls?.length && state.steps <= MAX_STEPS ? "tools" : END;
}

const graph = new StateGraph(AgentState)
  .addNode("agent", agent)
  .addNode("tools", new ToolNode(tools))
  .addEdge(START, "agent")
  .addConditionalEdges("agent", shouldContinue, ["tools", END])
  .addEdge("tools", "agent")
  .compile();

try {
  const result = await graph.invoke({ messages: [{ role: "user", content: process.argv[2] ?? QUESTION }] });
  for (const message of result.messages) {
    if (message.getType() === "ai" && message.tool_calls?.length)
      for (const call of message.tool_calls) console.log(`→ ${call.name} ${JSON.stringify(call.args)}`);
    if (message.getType() === "tool") console.log(`← ${message.name} ${message.status}`);
  }
  console.log(result.messages.at(-1).content);
} finally {
  await yard.close();
}
