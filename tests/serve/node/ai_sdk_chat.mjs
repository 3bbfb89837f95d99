// The Vercel AI SDK's own transport and stream parser (npm `ai`) run one chat turn
// against `agentcore serve`, as a `useChat` frontend served from ORIGIN would.
// Usage: node ai_sdk_chat.mjs BASE_URL ORIGIN; prints {headers, message} as JSON.
import { DefaultChatTransport, readUIMessageStream } from "ai";

const [base, origin] = process.argv.slice(-2);
let headers;
const transport = new DefaultChatTransport({
  api: `${base}/chat`,
  headers: { Origin: origin },
  fetch: async (url, init) => {
    const response = await fetch(url, init);
    headers = Object.fromEntries(response.headers);
    return response;
  },
});
const stream = await transport.sendMessages({
  chatId: "vercel-chat",
  trigger: "submit-message",
  messageId: undefined,
  abortSignal: undefined,
  messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "weather in Paris" }] }],
});
let message;
const updates = readUIMessageStream({
  stream,
  onError: (error) => {
    throw error;
  },
});
for await (const update of updates) message = update;
console.log(JSON.stringify({ headers, message }));
