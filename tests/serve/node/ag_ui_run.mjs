// The AG-UI TypeScript client (npm `@ag-ui/client`, which checks every event's shape and
// order) runs one turn against `agentcore serve`, as a CopilotKit frontend served from
// ORIGIN would. Usage: node ag_ui_run.mjs BASE_URL ORIGIN; prints {types, messages}.
import { HttpAgent } from "@ag-ui/client";

const [base, origin] = process.argv.slice(-2);
const agent = new HttpAgent({ url: `${base}/ag-ui`, headers: { Origin: origin }, threadId: "ag-ui-thread" });
agent.messages = [{ id: "u1", role: "user", content: "weather in Paris" }];
const types = [];
await agent.runAgent({ runId: "run-1" }, { onEvent: ({ event }) => void types.push(event.type) });
console.log(JSON.stringify({ types, messages: agent.messages }));
