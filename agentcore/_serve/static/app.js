// The agentcore web page: a chat and an inspector over one agent's SSE stream.
// Everything shown is a fold of the stream (?after=0 replays the journal), so a reload
// rebuilds the same view, and a reconnect (Last-Event-ID) misses nothing.
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

function withToken(path) {
  if (!token) return path;
  return path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token);
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

// -- the chat, folded from the events --------------------------------------------------
const view = { bubble: null, blocks: {}, cards: {} };

function bubble() {
  if (!view.bubble) {
    view.bubble = el("div", "assistant");
    view.bubble.dataset.testid = "assistant";
    view.bubble.setAttribute("data-testid", "assistant");
    $("log").append(view.bubble);
    view.blocks = {};
  }
  return view.bubble;
}

function block(kind, index) {
  const key = kind + index;
  if (!view.blocks[key]) {
    let node;
    if (kind === "thinking") {
      node = el("details", "thinking");
      node.setAttribute("data-testid", "thinking");
      node.append(el("summary", "", "Thinking"));
      node.body = el("span");
      node.append(node.body);
    } else {
      node = el("div", "text");
      node.setAttribute("data-testid", "text");
      node.body = node;
    }
    bubble().append(node);
    view.blocks[key] = node;
  }
  return view.blocks[key].body;
}

function card(call) {
  let node = view.cards[call.tool_call_id];
  if (!node) {
    node = el("div", "card");
    node.setAttribute("data-testid", "tool-card");
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
  const yes = el("button", "", "Approve");
  const no = el("button", "", "Reject");
  yes.setAttribute("data-testid", "approve");
  no.setAttribute("data-testid", "reject");
  const decide = (approved) => {
    box.remove();
    api(`/agents/${agentId}/approve`, {
      method: "POST",
      body: JSON.stringify({ tool_call_id: call.tool_call_id, approved }),
    });
  };
  yes.onclick = () => decide(true);
  no.onclick = () => decide(false);
  box.append(yes, no);
  node.append(box);
}

function text(content) {
  if (typeof content === "string") return content;
  return content.map((b) => b.text || "[image]").join("");
}

function fmt(n) { return n.toLocaleString("en"); }

// -- sub-agents: each run of a child in its own panel, inside the card of the call that
// spawned it (a grandchild inside its parent's panel), told apart by its lineage run id
const subs = {};

function subPanel(lineage) {
  let panel = subs[lineage.run_id];
  if (!panel) {
    const parent = subs[lineage.parent_run_id];
    const cards = parent ? parent.cards : view.cards;
    const host = cards[lineage.tool_call_id] || (parent ? parent.node : bubble());
    const node = el("div", "subagent");
    node.setAttribute("data-testid", "subagent");
    node.dataset.runId = lineage.run_id;
    const head = el("div", "subagent-head");
    head.append(el("strong", "", `sub-agent: ${lineage.name || lineage.agent_type}`),
      el("span", "run-id", ` ${lineage.run_id}`));
    const status = el("span", "subagent-status", "running");
    status.setAttribute("data-testid", "subagent-status");
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
    let node;
    if (kind === "thinking") {
      node = el("details", "thinking");
      node.append(el("summary", "", "Thinking"));
      node.body = el("span");
      node.append(node.body);
    } else {
      node = el("div", "text");
      node.setAttribute("data-testid", "subagent-text");
      node.body = node;
    }
    panel.node.append(node);
    panel.blocks[key] = node;
  }
  return panel.blocks[key].body;
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
  text_delta(panel, d) { if (d.text) subBlock(panel, "text", d.index).textContent += d.text; },
  thinking_delta(panel, d) {
    if (d.text) subBlock(panel, "thinking", d.index).textContent += d.text;
  },
  tool_call_message(panel, d) { subCard(panel, d.tool_call); },
  tool_result_message(panel, d) {
    const node = subCard(panel, d);
    node.result.textContent = (d.is_error ? "error: " : "result: ") + text(d.result);
  },
  agent_end(panel, d) {
    panel.status.textContent = d.reason === "completed" ? "done" : d.reason;
    panel.node.classList.add(d.reason);
  },
};

const handlers = {
  user_message(d) {
    view.bubble = null;
    const node = el("div", "user", text(d.content));
    node.setAttribute("data-testid", "user");
    $("log").append(node);
  },
  message_start() { bubble(); view.blocks = {}; },  // each model reply its own blocks
  text_delta(d) { if (d.text) block("text", d.index).textContent += d.text; },
  thinking_delta(d) { if (d.text) block("thinking", d.index).textContent += d.text; },
  tool_call_message(d) { card(d.tool_call); },
  tool_approval_required(d) { d.tool_calls.forEach(askApproval); },
  tool_result_message(d) {
    const node = card({ tool_call_id: d.tool_call_id, tool_name: d.tool_name });
    node.result.textContent = (d.is_error ? "error: " : "result: ") + text(d.result);
    if (d.is_error) node.classList.add("error");
    const box = node.querySelector(".approval");
    if (box) box.remove();
  },
  error_message(d) {
    const node = el("div", "error-message", `error ${d.code}: ${d.message}`);
    node.setAttribute("data-testid", "error");
    bubble().append(node);
  },
  turn_response(d) {
    const u = d.usage || {};
    const cost = d.cost === null || d.cost === undefined ? "cost unknown" : `$${d.cost.toFixed(4)}`;
    const line = `tokens ${fmt(u.input_tokens || 0)} in / ${fmt(u.output_tokens || 0)} out · ${cost} · ${(d.duration_ms / 1000).toFixed(2)} s`;
    const node = el("div", "footer", line);
    node.setAttribute("data-testid", "footer");
    bubble().append(node);
  },
  subagent_event(d) {
    const lineage = d.lineage.data;
    const inner = d.event;
    const handle = subHandlers[inner.type];
    if (handle) handle(subPanel(lineage), inner.data);
  },
  agent_end(d) {
    if (d.reason === "aborted") {
      const node = el("div", "notice", "[interrupted]");
      node.setAttribute("data-testid", "interrupted");
      bubble().append(node);
    }
    view.bubble = null;
  },
};

const ACTIVITY = {
  conversation_thinking: "thinking", conversation_responding: "responding",
  tool_planned: "planning tool", tool_executing: "running tools",
  conversation_end: "idle", conversation_interrupted: "idle", error_occurred: "error",
};

function connect() {
  const source = new EventSource(withToken(`/agents/${agentId}/events?after=0`));
  source.onopen = () => { $("connection").textContent = "connected"; };
  source.onerror = () => { $("connection").textContent = "reconnecting"; };
  const seen = Object.keys(handlers).concat(Object.keys(ACTIVITY));
  for (const type of seen) {
    source.addEventListener(type, (message) => {
      const event = JSON.parse(message.data);
      if (ACTIVITY[type]) $("activity").textContent = ACTIVITY[type];
      if (handlers[type]) handlers[type](event.data);
      document.body.dataset.lastEventId = message.lastEventId;
    });
  }
  window.agentcoreSource = source;
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
      const cell = el("td", "", lines.join("\n"));
      cell.style.whiteSpace = "pre-wrap";
      row.append(cell);
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
async function main() {
  if (!agentId) {
    const response = await api("/agents", { method: "POST", body: "{}" });
    agentId = (await response.json()).agent_id;
    params.set("agent", agentId);
    history.replaceState(null, "", `?${params}`);
  }
  $("agent").textContent = agentId;
  $("download").href = withToken(`/agents/${agentId}/journal`);
  $("composer").onsubmit = async (submit) => {
    submit.preventDefault();
    const value = $("text").value.trim();
    if (!value) return;
    $("text").value = "";
    const response = await api(`/agents/${agentId}/messages`, {
      method: "POST", body: JSON.stringify({ text: value }),
    });
    if (!response.ok) {
      const node = el("div", "error-message", (await response.json()).error);
      node.setAttribute("data-testid", "error");
      $("log").append(node);
    }
  };
  $("interrupt").onclick = () => api(`/agents/${agentId}/interrupt`, { method: "POST" });
  $("inspect").onclick = async () => {
    const panel = $("inspector");
    panel.hidden = !panel.hidden;
    if (!panel.hidden) await loadTimeline();
  };
  $("slider").oninput = () => showStateAt(Number($("slider").value));
  connect();
}

main();
