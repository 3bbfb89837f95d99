// The agentcore web page: a chat and an inspector over one agent's SSE stream.
// Everything shown is a fold of the stream (?after=0 replays the journal), so a reload
// rebuilds the same view, and a reconnect (Last-Event-ID) misses nothing. What the user
// typed and the server has not taken yet (a message sent, queued or steering) is held in
// #pending until its user_message comes back in the stream.
"use strict";

const params = new URLSearchParams(location.search);
const token = params.get("token");
let agentId = params.get("agent");
const $ = (id) => document.getElementById(id);

function api(path, options = {}) {
  const headers = Object.assign({ "content-type": "application/json" }, options.headers || {});
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch(path, Object.assign({}, options, { headers }));
}

function post(path, body = {}) {
  return api(path, { method: "POST", body: JSON.stringify(body) });
}

function withToken(path) {
  if (!token) return path;
  return path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token);
}

function pageOf(id) {
  const query = new URLSearchParams();
  if (id) query.set("agent", id);
  if (token) query.set("token", token);
  const text = query.toString();
  return text ? `/?${text}` : "/";
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function testid(node, id) {
  node.setAttribute("data-testid", id);
  return node;
}

// -- markdown: marked renders, Prism highlights code, DOMPurify keeps what a reply needs --
// A model's reply is untrusted: raw HTML in it is shown as text, an image is a link (a
// reply never makes the browser fetch anything), and the sanitiser drops whatever else.
const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (value) => String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);

const markdown = new marked.Marked({
  gfm: true,
  breaks: true,
  renderer: {
    html({ text }) { return escapeHtml(text); },
    image({ href, text }) {
      return `<a href="${escapeHtml(href)}">image: ${escapeHtml(text || href)}</a>`;
    },
    checkbox({ checked }) { return checked ? "☑ " : "☐ "; },
    code({ text, lang }) {
      const name = (lang || "").trim().split(/\s+/)[0].toLowerCase();
      const known = name && Object.hasOwn(Prism.languages, name);
      const grammar = known && typeof Prism.languages[name] === "object" ? Prism.languages[name] : null;
      const body = grammar ? Prism.highlight(text, grammar, name) : escapeHtml(text);
      const cls = name ? ` class="language-${escapeHtml(name)}"` : "";
      return `<pre${cls}><code${cls}>${body}</code></pre>\n`;
    },
  },
});

const PURIFY = {
  ALLOWED_TAGS: ["a", "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em",
    "del", "code", "pre", "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr",
    "th", "td", "span"],
  ALLOWED_ATTR: ["href", "title", "class", "start", "align"],
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};
DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

function renderMarkdown(source) {
  return DOMPurify.sanitize(markdown.parse(source), PURIFY);
}

// A text block keeps its markdown in .source; deltas mark it dirty, and it is rendered
// again once per frame (or at once before any other event, so what follows a reply never
// sees it half drawn).
const dirty = new Set();
let frame = 0;

function markdownBlock(cls, id) {
  const node = testid(el("div", `${cls} markdown`), id);
  node.source = "";
  node.body = node;
  return node;
}

function append(node, delta) {
  node.source += delta;
  dirty.add(node);
  if (!frame) frame = requestAnimationFrame(render);
}

function render() {
  if (frame) cancelAnimationFrame(frame);
  frame = 0;
  for (const node of dirty) node.innerHTML = renderMarkdown(node.source);
  dirty.clear();
}

// -- following the conversation: stay at the newest unless the user scrolled up ---------
let stick = true;

function atBottom() {
  const thread = $("thread");
  return thread.scrollHeight - thread.scrollTop - thread.clientHeight < 40;
}

function follow() {
  if (stick) $("thread").scrollTop = $("thread").scrollHeight;
  else $("jump").hidden = false;
}

// -- the chat, folded from the events --------------------------------------------------
const view = { bubble: null, blocks: {}, cards: {} };
const run = { turns: 0, started: 0, failed: false };  // the run in progress

function bubble() {
  if (!view.bubble) {
    view.bubble = testid(el("div", "assistant"), "assistant");
    $("log").append(view.bubble);
    $("welcome").hidden = true;
    view.blocks = {};
  }
  return view.bubble;
}

function thinkingBlock() {
  const node = el("details", "thinking");
  node.append(el("summary", "", "Thinking"));
  node.body = el("span");
  node.append(node.body);
  return node;
}

function block(kind, index) {
  const key = kind + index;
  if (!view.blocks[key]) {
    const node = kind === "thinking" ? testid(thinkingBlock(), "thinking")
      : markdownBlock("text", "text");
    bubble().append(node);
    view.blocks[key] = node;
  }
  return view.blocks[key];
}

function card(call) {
  let node = view.cards[call.tool_call_id];
  if (!node) {
    node = testid(el("div", "card"), "tool-card");
    node.dataset.callId = call.tool_call_id;
    node.append(el("strong", "", `tool call: ${call.tool_name}`));
    node.args = el("pre", "args");
    node.result = el("pre", "result");
    node.append(node.args, node.result);
    bubble().append(node);
    view.cards[call.tool_call_id] = node;
  }
  if (call.input !== undefined) node.args.textContent = JSON.stringify(call.input);
  return node;
}

function askApproval(call) {
  const node = card(call);
  if (node.querySelector(".approval")) return;
  const box = el("div", "approval");
  const yes = testid(el("button", "approve", "Approve"), "approve");
  const no = testid(el("button", "", "Reject"), "reject");
  const decide = (approved) => {
    box.remove();
    post(`/agents/${agentId}/approve`, { tool_call_id: call.tool_call_id, approved });
  };
  yes.onclick = () => decide(true);
  no.onclick = () => decide(false);
  box.append(el("span", "", "This call needs your approval."), yes, no);
  node.append(box);
}

function text(content) {
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

// -- media: attached files, and the parts of messages and tool results -------------------
// A part is shown by what it is: an image inline, anything else a chip (kind, name, size).
const attachments = [];

function size(bytes) {  // as the server's placeholders write sizes (describe_part)
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1048576).toFixed(1)} MB`;
}

function partBytes(part) {
  const data = part.data || "";
  return Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);
}

function mediaNode(part) {
  if (part.type === "image" && part.data) {
    const img = testid(el("img", "media-image"), "media-image");
    img.src = `data:${part.media_type};base64,${part.data}`;
    img.alt = part.title || "image";
    return img;
  }
  const name = part.title || part.url || part.file_id || part.media_type;
  const detail = part.data ? `${part.media_type}, ${size(partBytes(part))}` : part.media_type;
  const chip = testid(el("span", `chip chip-${part.type}`), "media-chip");
  chip.append(el("b", "", part.type), el("span", "", ` ${name}`), el("small", "", ` ${detail}`));
  return chip;
}

function showParts(node, content) {
  if (typeof content === "string") return;
  const media = content.filter((part) => part.type !== "text");
  if (!media.length) return;
  const row = el("div", "media");
  for (const part of media) row.append(mediaNode(part));
  node.append(row);
}

const KINDS = { "application/pdf": "document", "text/plain": "document" };

function kindOf(file) {
  const type = file.type || "application/octet-stream";
  return KINDS[type] || (["image", "audio"].includes(type.split("/")[0]) ? type.split("/")[0] : null);
}

function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

async function attach(files) {
  for (const file of files) {
    const kind = kindOf(file);
    if (!kind) {
      notify(`Cannot attach ${file.name}: ${file.type || "an unknown type"} (images, PDFs, text and audio only).`);
      continue;
    }
    const part = { type: kind, media_type: file.type, data: await readFile(file) };
    if (kind === "document") part.title = file.name;
    attachments.push(part);
  }
  showAttachments();
}

function showAttachments() {
  const box = $("attachments");
  box.replaceChildren();
  attachments.forEach((part, i) => {
    const chip = mediaNode(part.type === "image" ? { ...part, type: "file", title: "image" } : part);
    const remove = testid(el("button", "remove", "×"), "remove-attachment");
    remove.type = "button";
    remove.title = "Remove";
    remove.onclick = () => { attachments.splice(i, 1); showAttachments(); };
    chip.append(remove);
    box.append(testid(chip, "attachment"));
  });
  box.hidden = !attachments.length;
}

function fmt(n) { return n.toLocaleString("en"); }

function money(cost) {
  return cost === null || cost === undefined ? "cost unknown" : `$${cost.toFixed(4)}`;
}

// -- sub-agents: each run of a child in its own panel, inside the card of the call that
// spawned it (a grandchild inside its parent's panel), told apart by its lineage run id
const subs = {};

function subPanel(lineage) {
  let panel = subs[lineage.run_id];
  if (!panel) {
    const parent = subs[lineage.parent_run_id];
    const cards = parent ? parent.cards : view.cards;
    const host = cards[lineage.tool_call_id] || (parent ? parent.node : bubble());
    const node = testid(el("div", "subagent"), "subagent");
    node.dataset.runId = lineage.run_id;
    const head = el("div", "subagent-head");
    head.append(el("strong", "", `sub-agent: ${lineage.name || lineage.agent_type}`),
      el("span", "run-id", ` ${lineage.run_id}`));
    const status = testid(el("span", "subagent-status", "running"), "subagent-status");
    head.append(status);
    node.append(head);
    host.append(node);
    panel = subs[lineage.run_id] = { node, status, blocks: {}, cards: {} };
  }
  return panel;
}

function subBlock(panel, kind, index) {
  const key = kind + index;
  if (!panel.blocks[key]) {
    const node = kind === "thinking" ? thinkingBlock() : markdownBlock("text", "subagent-text");
    panel.node.append(node);
    panel.blocks[key] = node;
  }
  return panel.blocks[key];
}

function subCard(panel, call) {
  let node = panel.cards[call.tool_call_id];
  if (!node) {
    node = el("div", "card");
    node.append(el("strong", "", `tool call: ${call.tool_name}`));
    node.result = el("pre", "result");
    node.append(node.result);
    panel.node.append(node);
    panel.cards[call.tool_call_id] = node;
  }
  return node;
}

const subHandlers = {
  message_start(panel) { panel.blocks = {}; },
  text_delta(panel, d) { if (d.text) append(subBlock(panel, "text", d.index), d.text); },
  thinking_delta(panel, d) {
    if (d.text) subBlock(panel, "thinking", d.index).body.textContent += d.text;
  },
  tool_call_message(panel, d) { subCard(panel, d.tool_call); },
  tool_result_message(panel, d) {
    const node = subCard(panel, d);
    node.result.textContent = (d.is_error ? "error: " : "result: ") + text(d.result);
    showParts(node.result, d.result);
  },
  agent_end(panel, d) {
    panel.status.textContent = d.reason === "completed" ? "done" : d.reason;
    panel.node.classList.add(d.reason);
  },
};

// Why a run stopped at a limit, in the user's words; the page's way on is a new message.
const LIMITS = {
  MAX_ITERATIONS_EXCEEDED: "it reached its limit on model calls per run (max iterations)",
  MAX_TOKENS_EXCEEDED: "it used more tokens than its limit (max tokens)",
  MAX_COST_EXCEEDED: "it cost more than its limit (max cost)",
  TIMEOUT: "it ran longer than its time limit (timeout)",
};

function streamedChars() {
  let chars = 0;
  for (const node of Object.values(view.blocks)) {
    chars += node.source !== undefined ? node.source.length : node.body.textContent.length;
  }
  return chars;
}

function stoppedNotice(d, ts) {
  const node = testid(el("div", "stopped"), "stopped");
  node.dataset.code = d.code;
  const u = d.usage || {};
  const used = [`${run.turns} model call${run.turns === 1 ? "" : "s"}`,
    `${fmt((u.input_tokens || 0) + (u.output_tokens || 0))} tokens`, money(d.cost),
    `${((ts - run.started) / 1000).toFixed(1)} s`];
  node.append(el("strong", "", "Stopped: "), `${LIMITS[d.code]}.`);
  const how = el("div", "how", `Used ${used.join(", ")}. The work so far is kept: ` +
    "Continue lets it go on from here (a message starts a new run, with fresh limits).");
  const go = testid(el("button", "", "Continue"), "continue");
  go.onclick = () => { go.disabled = true; submitText("Continue."); };
  how.append(" ", go);
  node.append(how);
  return node;
}

// A handoff (docs/handoffs.md): the result of a transfer tool names who speaks from now on.
function showHandoff(d) {
  const moved = !d.is_error && d.details && d.details.handoff;
  if (!moved) return;
  const label = $("speaking");
  label.textContent = `speaking: ${moved.to}`;
  label.hidden = false;
  $("log").append(testid(el("div", "notice", `${moved.from} handed over to ${moved.to}`), "handoff"));
  view.bubble = null;
}
const CACHE_BUSTS = {
  compaction: "the context was compacted", model: "the model changed",
  thinking: "the thinking level changed",
  tools: "the tools changed", system_prompt: "the system prompt changed",
};

const handlers = {
  agent_start(d, ts) {
    Object.assign(run, { turns: 0, started: ts, failed: false });
    setBusy(true);
  },
  turn_start(d) { run.turns = Math.max(run.turns, d.turn); },
  user_message(d) {
    view.bubble = null;
    const said = text(d.content);
    const mine = [...$("pending").children].find((n) => n.dataset.state !== "queued" && n.text === said);
    if (mine) mine.remove();
    const node = testid(el("div", "user", said), "user");
    showParts(node, d.content);
    $("log").append(node);
    $("welcome").hidden = true;
    if ($("log").querySelectorAll(".user").length === 1) refreshConversations();  // its title
  },
  message_start() { bubble(); view.blocks = {}; },  // each model reply its own blocks
  text_delta(d) { if (d.text) append(block("text", d.index), d.text); },
  thinking_delta(d) { if (d.text) block("thinking", d.index).body.textContent += d.text; },
  tool_call_message(d) { card(d.tool_call); },
  tool_approval_required(d) { d.tool_calls.forEach(askApproval); },
  tool_result_message(d) {
    const node = card({ tool_call_id: d.tool_call_id, tool_name: d.tool_name });
    node.result.textContent = (d.is_error ? "error: " : "result: ") + text(d.result);
    showParts(node.result, d.result);
    if (d.is_error) node.classList.add("error");
    const box = node.querySelector(".approval");
    if (box) box.remove();
    showHandoff(d);
  },
  error_message(d) {
    if (d.code === "AGENT_BUSY") return;  // a refused command: the page answers it itself
    if (LIMITS[d.code]) return;  // a limit stop: agent_end shows it in the page's words
    run.failed = true;
    bubble().append(testid(el("div", "error-message", `error ${d.code}: ${d.message}`), "error"));
  },
  turn_response(d) {
    const u = d.usage || {};
    const parts = [`tokens ${fmt(u.input_tokens || 0)} in / ${fmt(u.output_tokens || 0)} out`,
      money(d.cost)];
    if (d.stop_reason === "interrupted" && !u.input_tokens && !u.output_tokens) {
      // the model was cut before it reported usage: what streamed is all there is to count
      const estimate = Math.ceil(streamedChars() / 4);
      parts.splice(0, 2, `tokens ≈${fmt(estimate)} out (estimated: interrupted before the ` +
        "model reported usage)");
    }
    parts.push(`${(d.duration_ms / 1000).toFixed(2)} s`);
    bubble().append(testid(el("div", "footer", parts.join(" · ")), "footer"));
  },
  provider_part(d) {
    const p = d.part.data || d.part;
    const line = p.type === "citation" ? `[source: ${p.title || p.url} ${p.url}]`
      : p.type === "server_tool_call" ? `[${p.tool_name} ${JSON.stringify(p.input).slice(0, 200)}]`
      : `[${p.tool_name} ${p.is_error ? "failed" : "done"}]`;
    bubble().append(testid(el("div", "notice", line), "provider-part"));
  },
  cache_bust(d) {
    const why = CACHE_BUSTS[d.reason] || `the history sent changed at message ${d.index} of ${d.previous}`;
    bubble().append(testid(el("div", "notice", `[cache bust: ${why}; the cached prefix cannot be read]`),
      "cache-bust"));
  },
  rate_limited(d) {  // the call waits to keep within a rate budget (docs/rate-budgets.md)
    const said = `[rate limited: waiting ${(d.wait_ms / 1000).toFixed(1)}s for ${d.scope} ${d.limit}]`;
    bubble().append(testid(el("div", "notice", said), "rate-limited"));
  },
  subagent_event(d) {
    const handle = subHandlers[d.event.type];
    if (handle) handle(subPanel(d.lineage.data), d.event.data);
  },
  agent_end(d, ts) {
    if (d.reason === "aborted") {
      bubble().append(testid(el("div", "notice", "[interrupted]"), "interrupted"));
    } else if (d.reason === "error" && LIMITS[d.code]) {
      bubble().append(stoppedNotice(d, ts));
    } else if (d.reason === "error" && !run.failed) {
      bubble().append(testid(el("div", "error-message", `error ${d.code}: ${d.message}`), "error"));
    }
    view.bubble = null;
    setActivity("idle");
    setBusy(false);
    afterRun(d.reason);
    refreshConversations();
  },
};

const ACTIVITY = {
  conversation_thinking: "thinking", conversation_responding: "responding",
  tool_planned: "planning tool", tool_executing: "running tools",
  tool_approval_required: "waiting for approval",
  conversation_end: "idle", conversation_interrupted: "idle", error_occurred: "error",
};

function setActivity(value) {
  $("activity").textContent = value;
  $("activity").dataset.state = value.replace(/ /g, "-");
}

function connect() {
  $("connection").textContent = "connecting";
  const source = new EventSource(withToken(`/agents/${agentId}/events?after=0`));
  source.onopen = () => { $("connection").textContent = "connected"; };
  source.onerror = () => { $("connection").textContent = "reconnecting"; };
  const seen = new Set(Object.keys(handlers).concat(Object.keys(ACTIVITY)));
  for (const type of seen) {
    source.addEventListener(type, (message) => {
      const event = JSON.parse(message.data);
      if (type !== "text_delta") render();
      if (ACTIVITY[type]) setActivity(ACTIVITY[type]);
      if (handlers[type]) handlers[type](event.data, event.timestamp);
      document.body.dataset.lastEventId = message.lastEventId;
    });
  }
  window.agentcoreSource = source;
}

// -- sending: at once when idle; while a run is active, queued (sent when it ends) or
// steering (read before the agent's next step), shown at once either way ----------------
let busy = false;
const outbox = [];  // queued bubbles, oldest first
const NOTES = {
  sending: "sending…",
  queued: "queued: sent when the agent is done",
  steer: "steering: read before the agent's next step",
  unread: "not read yet: the run ended first",
};

function mode() { return document.querySelector('input[name="when"]:checked').value; }

function setBusy(value) {
  busy = value;
  $("busy-choice").hidden = !value;
  $("interrupt").disabled = !value;
  $("send").textContent = !value ? "Send" : mode() === "steer" ? "Steer" : "Queue";
}

function setState(node, state) {
  node.dataset.state = state;
  testid(node, state === "queued" ? "queued" : "pending-message");
  node.note.textContent = NOTES[state];
  node.edit.hidden = state !== "queued";
}

function pendingBubble(value, state) {
  const node = el("div", "user pending");
  node.text = value;
  node.append(el("div", "", value));
  node.note = el("div", "note");
  node.edit = testid(el("button", "edit", "Edit"), "edit-queued");
  node.edit.type = "button";
  node.edit.onclick = () => {
    outbox.splice(outbox.indexOf(node), 1);
    saveOutbox();
    node.remove();
    restore(value);
  };
  const row = el("div", "row");
  row.append(node.note, node.edit);
  node.append(row);
  setState(node, state);
  $("pending").append(node);
  $("welcome").hidden = true;
  return node;
}

function notify(message) {
  const notice = $("composer-notice");
  notice.textContent = message;
  notice.hidden = !message;
}

function restore(value) {
  const box = $("text");
  box.value = box.value.trim() ? `${value}\n\n${box.value}` : value;
  autosize();
  box.focus();
}

async function failure(response) {
  try {
    return (await response.json()).error || `the server answered ${response.status}`;
  } catch {
    return `the server answered ${response.status}`;
  }
}

function giveBack(node, why) {
  node.remove();
  if (node.parts) {
    attachments.push(...node.parts);
    showAttachments();
  }
  restore(node.text);
  notify(`Not sent: ${why}. Your message is back in the box.`);
}

async function start(node) {
  setState(node, "sending");
  let response;
  try {
    const body = node.parts ? { text: node.text, content: node.parts } : { text: node.text };
    response = await post(`/agents/${agentId}/messages`, body);
  } catch (error) {
    return giveBack(node, `the server cannot be reached (${error.message})`);
  }
  if (response.ok) return;  // its user_message, coming back in the stream, replaces it
  if (response.status === 409 && (await runActive())) return queue(node, true);
  giveBack(node, response.status === 409 ? "the agent was busy" : await failure(response));
}

async function runActive() {
  const response = await api(`/agents/${agentId}/state`);
  if (!response.ok) return false;
  const state = await response.json();
  const active = state.running || state.pending_approvals.length > 0;
  if (active) setBusy(true);  // a run this page has not seen start yet
  return active;
}

function queue(node, first = false) {
  setState(node, "queued");
  if (first) outbox.unshift(node);
  else outbox.push(node);
  saveOutbox();
}

async function steer(value) {
  const node = pendingBubble(value, "steer");
  let response;
  try {
    response = await post(`/agents/${agentId}/steer`, { text: value });
  } catch (error) {
    return giveBack(node, `the server cannot be reached (${error.message})`);
  }
  if (!response.ok) giveBack(node, await failure(response));
}

function afterRun(reason) {
  for (const node of $("pending").children) {
    if (node.dataset.state === "steer") setState(node, "unread");
  }
  if (!outbox.length) return;
  if (reason === "completed") {
    const next = outbox.shift();
    saveOutbox();
    start(next);
    return;
  }
  const held = outbox.splice(0);
  saveOutbox();
  for (const node of held) node.remove();
  restore(held.map((n) => n.text).join("\n\n"));
  notify(reason === "aborted"
    ? "Stopped. What you queued is back in the box: send it when you are ready."
    : "The run ended early. What you queued is back in the box: send it when you are ready.");
}

// The queue outlives a reload (sessionStorage): back in the box, never sent unasked.
const QUEUE_KEY = () => `agentcore.queue.${agentId}`;

function saveOutbox() {
  if (!agentId) return;
  if (outbox.length) sessionStorage.setItem(QUEUE_KEY(), JSON.stringify(outbox.map((n) => n.text)));
  else sessionStorage.removeItem(QUEUE_KEY());
}

function restoreOutbox() {
  const saved = JSON.parse(sessionStorage.getItem(QUEUE_KEY()) || "[]");
  sessionStorage.removeItem(QUEUE_KEY());
  if (saved.length) {
    restore(saved.join("\n\n"));
    notify("What you had queued is back in the box.");
  }
}

async function ensureAgent() {
  if (agentId) return true;
  let response;
  try {
    response = await post("/agents");
  } catch (error) {
    notify(`Could not start a conversation: the server cannot be reached (${error.message}).`);
    return false;
  }
  if (!response.ok) {
    notify(`Could not start a conversation: ${await failure(response)}.`);
    return false;
  }
  open((await response.json()).agent_id);
  history.replaceState(null, "", pageOf(agentId));
  refreshConversations();
  return true;
}

async function submitText(value) {
  notify("");
  stick = true;
  if (!(await ensureAgent())) return restore(value);
  if (!busy) return start(pendingBubble(value, "sending"));
  if (mode() === "steer") return steer(value);
  queue(pendingBubble(value, "queued"));
}

// A message with attachments is sent at once (not queued or steered: those carry text).
async function submitParts(value) {
  notify("");
  if (busy) return notify("Wait for the answer to end to send files.");
  stick = true;
  if (!(await ensureAgent())) return;
  const parts = attachments.splice(0);
  showAttachments();
  $("text").value = "";
  autosize();
  const node = pendingBubble(value, "sending");
  node.parts = parts;
  showParts(node, parts);
  start(node);
}

function autosize() {
  const box = $("text");
  box.style.height = "auto";
  box.style.height = `${Math.min(box.scrollHeight, 200)}px`;
}

// -- earlier conversations ---------------------------------------------------------------
let listing = 0;

function refreshConversations() {
  clearTimeout(listing);
  listing = setTimeout(loadConversations, 100);
}

function when(ms) {
  const date = new Date(ms);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })
    : date.toLocaleDateString([], { month: "short", day: "numeric" });
}

async function loadConversations() {
  const response = await api("/agents");
  if (!response.ok) return;
  const { agents } = await response.json();
  // each title is one more request: the 50 the server lists last (its newest)
  const rows = await Promise.all(agents.slice(-50).map(async (agent) => {
    const state = await api(`/agents/${agent.agent_id}/state`);
    const messages = state.ok ? (await state.json()).messages : [];
    const first = messages.find((m) => m.type === "user_message");
    const last = messages[messages.length - 1];
    return { agent, title: first ? text(first.data.content) : "", at: last ? last.timestamp : 0 };
  }));
  rows.sort((a, b) => b.at - a.at);
  const nav = $("conversations");
  nav.replaceChildren();
  for (const { agent, title, at } of rows) {
    if (!title && agent.agent_id !== agentId) continue;  // nothing said there yet
    const link = testid(el("a", "conversation"), "conversation");
    link.href = pageOf(agent.agent_id);
    link.dataset.agent = agent.agent_id;
    if (agent.agent_id === agentId) link.setAttribute("aria-current", "page");
    link.append(el("span", "title", title || "New conversation"));
    const meta = [at ? when(at) : "", agent.activity !== "idle" ? "active" : ""];
    link.append(el("span", "meta", meta.filter(Boolean).join(" · ")));
    nav.append(link);
  }
  if (!nav.children.length) nav.append(el("p", "empty", "None yet."));
}

// -- the inspector ---------------------------------------------------------------------
const LAYERS = ["stream", "message", "state", "turn", "loop"];

async function loadTimeline() {
  const response = await api(`/agents/${agentId}/timeline`);
  const { entries } = await response.json();
  const body = $("timeline").querySelector("tbody");
  body.replaceChildren();
  for (const entry of entries) {
    const row = el("tr");
    row.dataset.seq = entry.seq;
    row.append(el("td", "", String(entry.seq)), el("td", "", entry.input.text));
    for (const layer of LAYERS) {
      const lines = entry.outputs.filter((o) => o.layer === layer).map((o) => o.text);
      row.append(el("td", "", lines.join("\n")));
    }
    body.append(row);
  }
  const slider = $("slider");
  slider.max = String(Math.max(1, entries.length ? entries[entries.length - 1].seq : 1));
  slider.value = slider.max;
  await showStateAt(Number(slider.value));
}

async function showStateAt(seq) {
  $("slider-value").textContent = String(seq);
  for (const row of $("timeline").querySelectorAll("tr[data-seq]")) {
    row.classList.toggle("current", Number(row.dataset.seq) === seq);
  }
  const response = await api(`/agents/${agentId}/state_at?seq=${seq}`);
  const data = await response.json();
  $("state-at").textContent = data.text || data.error;
}

// -- wiring ------------------------------------------------------------------------------
async function describe() {
  const response = await api(`/agents/${agentId}/state`);
  if (!response.ok) return;
  const { model } = await response.json();
  const demo = model === null || model === "agentcore/demo";
  $("model").textContent = demo ? "demo model" : model;
  $("text").placeholder = demo
    ? "Message the demo model (try: weather in Paris, delete notes.txt, research tides, tell me a story)"
    : `Message ${model}`;
}

function open(id) {
  agentId = id;
  $("agent").textContent = agentId;
  $("download").href = withToken(`/agents/${agentId}/journal`);
  $("inspect").disabled = false;
  describe();
  connect();
}

function main() {
  $("new-chat").href = pageOf(null);
  $("inspect").disabled = !agentId;
  $("composer").onsubmit = (submit) => {
    submit.preventDefault();
    const value = $("text").value.trim();
    if (attachments.length) return submitParts(value);
    if (!value) return;
    $("text").value = "";
    autosize();
    submitText(value);
  };
  $("attach").onclick = () => $("attach-input").click();
  $("attach-input").onchange = async () => {
    await attach([...$("attach-input").files]);
    $("attach-input").value = "";
  };
  for (const zone of [$("composer"), $("thread")]) {
    zone.addEventListener("dragover", (drag) => { drag.preventDefault(); zone.classList.add("dropping"); });
    zone.addEventListener("dragleave", () => zone.classList.remove("dropping"));
    zone.addEventListener("drop", (drop) => {
      drop.preventDefault();
      zone.classList.remove("dropping");
      attach([...drop.dataTransfer.files]);
    });
  }
  $("text").addEventListener("keydown", (key) => {
    if (key.key === "Enter" && !key.shiftKey && !key.isComposing) {
      key.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("text").addEventListener("input", autosize);
  for (const radio of document.querySelectorAll('input[name="when"]')) {
    radio.onchange = () => setBusy(busy);
  }
  $("interrupt").onclick = () => post(`/agents/${agentId}/interrupt`);
  $("inspect").onclick = async () => {
    const panel = $("inspector");
    panel.hidden = !panel.hidden;
    document.body.classList.toggle("inspecting", !panel.hidden);
    if (!panel.hidden) await loadTimeline();
  };
  $("slider").oninput = () => showStateAt(Number($("slider").value));
  const thread = $("thread");
  thread.addEventListener("scroll", () => {
    stick = atBottom();
    if (stick) $("jump").hidden = true;
  });
  new MutationObserver(follow).observe(thread, { childList: true, subtree: true, characterData: true });
  $("jump").onclick = () => { stick = true; follow(); $("jump").hidden = true; };
  if (agentId) {
    open(agentId);
    restoreOutbox();
  }
  loadConversations();
  autosize();
  $("text").focus();
}

main();
