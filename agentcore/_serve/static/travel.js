// Time travel (issue 30): a session's whole state at any entry, "branch here", and two
// sessions side by side with the diff of every layer. Kept apart from app.js: it only
// reads the page's ?agent= and token, and talks to GET .../view, POST .../branch and
// GET .../compare (agentcore/_serve/travel.py).
"use strict";

(() => {
  const query = new URLSearchParams(location.search);
  const travelToken = query.get("token");
  const current = () => new URLSearchParams(location.search).get("agent");

  function call(path, options = {}) {
    const headers = Object.assign({ "content-type": "application/json" }, options.headers || {});
    if (travelToken) headers.authorization = `Bearer ${travelToken}`;
    return fetch(path, Object.assign({}, options, { headers }));
  }

  function node(tag, cls, text, id) {
    const made = document.createElement(tag);
    if (cls) made.className = cls;
    if (text !== undefined) made.textContent = text;
    if (id) made.setAttribute("data-testid", id);
    return made;
  }

  function pageFor(agent) {
    const next = new URLSearchParams({ agent });
    if (travelToken) next.set("token", travelToken);
    return `/?${next}`;
  }

  // -- the panel: built here, so the page's HTML only loads this file ------------------
  const panel = node("section", "", undefined, "travel");
  panel.id = "travel";
  panel.hidden = true;
  panel.innerHTML = `
    <div class="travel-bar">
      <label>Session <select data-testid="travel-session"></select></label>
      <label class="grow">Entry <input data-testid="travel-slider" type="range" min="1" max="1" value="1"></label>
      <span data-testid="travel-seq">1</span>
      <button type="button" data-testid="travel-branch">Branch here</button>
    </div>
    <div class="travel-entry" data-testid="travel-entry"></div>
    <div class="travel-body">
      <ol class="travel-timeline" data-testid="travel-timeline"></ol>
      <div class="travel-state" data-testid="travel-state">
        <div class="travel-facts">
          <span>activity <b data-testid="travel-activity"></b></span>
          <span>usage <b data-testid="travel-usage"></b></span>
          <span>cost <b data-testid="travel-cost"></b></span>
        </div>
        <h3>Messages</h3><ol data-testid="travel-messages"></ol>
        <h3>Running tool calls</h3><ul data-testid="travel-pending"></ul>
        <h3>Waiting for approval</h3><ul data-testid="travel-approvals"></ul>
        <h3>Queued</h3><ul data-testid="travel-queued"></ul>
        <h3>Sub-agents</h3><ul data-testid="travel-subagents"></ul>
      </div>
    </div>
    <div class="travel-bar">
      <label>Compare with <select data-testid="travel-compare-with"></select></label>
      <button type="button" data-testid="travel-compare">Side by side</button>
    </div>
    <div class="travel-diff" data-testid="travel-diff" hidden>
      <p data-testid="travel-divergence"></p>
      <div class="travel-columns">
        <div><h3 data-testid="travel-left-id"></h3><ol data-testid="travel-left"></ol></div>
        <div><h3 data-testid="travel-right-id"></h3><ol data-testid="travel-right"></ol></div>
      </div>
      <pre data-testid="travel-diff-text"></pre>
    </div>`;
  const part = (id) => panel.querySelector(`[data-testid="${id}"]`);
  let session = null;
  let asked = 0;

  function fill(list, items, render) {
    list.replaceChildren();
    for (const item of items) list.append(render(item));
    if (!items.length) list.append(node("li", "empty", "none"));
  }

  const message = (m) => {
    const item = node("li", `travel-message ${m.type}`, undefined, "travel-message");
    item.append(node("span", "kind", m.type.replace("_message", "")), node("span", "", m.text));
    return item;
  };
  const toolCall = (c) => node("li", "", `${c.tool_name}(${JSON.stringify(c.input)}) ${c.tool_call_id}`);

  async function show(seq) {
    const ticket = ++asked;  // a slider moved fast: only the last answer is shown
    const response = await call(`/agents/${session}/view${seq ? `?seq=${seq}` : ""}`);
    const view = await response.json();
    if (ticket !== asked) return;
    if (!response.ok) {
      part("travel-entry").textContent = view.error || "cannot show this entry";
      return;
    }
    const slider = part("travel-slider");
    slider.max = String(view.last_seq);
    slider.value = String(view.seq);
    part("travel-seq").textContent = String(view.seq);
    part("travel-entry").textContent = `#${view.seq} of ${view.last_seq}: ${view.entry}`;
    part("travel-activity").textContent = view.activity;
    const usage = view.usage;
    part("travel-usage").textContent = `${usage.input_tokens} in / ${usage.output_tokens} out`;
    part("travel-cost").textContent = view.cost === null ? "unknown" : `$${view.cost.toFixed(6)}`;
    fill(part("travel-messages"), view.messages, message);
    fill(part("travel-pending"), view.pending_calls, toolCall);
    fill(part("travel-approvals"), view.pending_approvals, toolCall);
    fill(part("travel-queued"), view.queued, message);
    fill(part("travel-subagents"), view.subagents, (s) => node("li", "", `${s.agent_id} (${s.entries} entries)`));
    fill(part("travel-timeline"), view.timeline, (t) => {
      const item = node("li", `kind-${t.kind}`, `${t.seq} ${t.text}`);
      item.dataset.seq = t.seq;
      item.classList.toggle("current", t.seq <= view.seq);
      item.onclick = () => show(t.seq);
      return item;
    });
  }

  async function sessions() {
    const response = await call("/agents");
    const { agents } = await response.json();
    const ids = agents.map((a) => a.agent_id);
    const others = ids.filter((a) => a !== session);  // a session is not compared with itself
    choices(part("travel-session"), ids);
    choices(part("travel-compare-with"), others);
    part("travel-session").value = session;
    if (others.length) part("travel-compare-with").value = others[others.length - 1];
    part("travel-compare").disabled = !others.length;
  }

  function choices(select, ids) {
    select.replaceChildren(...ids.map((id) => {
      const option = node("option", "", id);
      option.value = id;
      return option;
    }));
  }

  async function openSession(id) {
    session = id;
    part("travel-diff").hidden = true;
    await sessions();
    await show(null);
  }

  async function branch() {
    const seq = Number(part("travel-slider").value);
    const response = await call(`/agents/${session}/branch`, { method: "POST", body: JSON.stringify({ seq }) });
    const made = await response.json();
    if (!response.ok) {
      part("travel-entry").textContent = made.error || "cannot branch here";
      return;
    }
    location.href = pageFor(made.agent_id);  // the branch goes on live in the chat
  }

  async function compare() {
    const other = part("travel-compare-with").value;
    const response = await call(`/agents/${session}/compare?with=${encodeURIComponent(other)}`);
    const data = await response.json();
    const box = part("travel-diff");
    box.hidden = false;
    if (!response.ok) {
      part("travel-divergence").textContent = data.error || "cannot compare";
      return;
    }
    const divergence = data.diff.divergence;
    part("travel-divergence").textContent = divergence
      ? `first divergence: ${divergence.text}` : "no divergence";
    part("travel-left-id").textContent = data.left.agent_id;
    part("travel-right-id").textContent = data.right.agent_id;
    fill(part("travel-left"), data.left.messages, message);
    fill(part("travel-right"), data.right.messages, message);
    part("travel-diff-text").textContent = data.text;
  }

  function install() {
    const header = document.querySelector("header");
    const main = document.querySelector("main");
    if (!header || !main) return;
    const button = node("button", "", "Time travel", "travel-open");
    button.type = "button";
    button.disabled = !current();
    header.append(button);
    main.append(panel);
    button.onclick = async () => {
      panel.hidden = !panel.hidden;
      document.body.classList.toggle("travelling", !panel.hidden);
      if (!panel.hidden) await openSession(current());
    };
    part("travel-slider").oninput = () => show(Number(part("travel-slider").value));
    part("travel-session").onchange = () => openSession(part("travel-session").value);
    part("travel-branch").onclick = branch;
    part("travel-compare").onclick = compare;
    // the page names its agent after the first message: let the button follow
    new MutationObserver(() => { button.disabled = !current(); })
      .observe(document.getElementById("agent") || header, { childList: true, characterData: true, subtree: true });
  }

  install();
})();
