// The plan viewer: reads a transcript in any of its file shapes, posts it with the options to
// POST /v1/window/plan, and draws the answer. It decides nothing about the window: every fate,
// hold, pin, shaping mark and the notice's place come from the answer; the page only reads the
// caller's own messages back to show their text and their roles.

const $ = (selector) => document.querySelector(selector);

// The service's paths, relative to the page, so a service mounted under a prefix still works.
const PLAN = "v1/window/plan";
const SAMPLES = "viewer/samples";
const INFO = "v1/info";

// What a row shows of a turn's text: enough to recognise it, never a whole tool output.
const MESSAGE_CHARS = 280;
const TURN_CHARS = 900;

let lastAnswer = null;

// ---- reading a transcript ----

// The file shapes: a JSON array of messages; an object {"format"?, "system"?, "messages"}; or
// JSON Lines, one message per line. Returns {messages, format?, system?} or throws an Error whose
// message says what is wrong.
export function readTranscript(text) {
  const trimmed = text.trim();
  if (!trimmed) throw new Error("Paste a transcript or open one first.");
  let whole;
  try {
    whole = JSON.parse(trimmed);
  } catch {
    whole = undefined;
  }
  if (Array.isArray(whole)) return { messages: whole };
  if (whole && typeof whole === "object") {
    if (!Array.isArray(whole.messages)) throw new Error('A JSON object needs a "messages" array.');
    const found = { messages: whole.messages };
    if (whole.format !== undefined) found.format = whole.format;
    if (whole.system !== undefined) found.system = whole.system;
    return found;
  }
  const messages = [];
  trimmed.split(/\r?\n/).forEach((line, number) => {
    if (!line.trim()) return;
    try {
      messages.push(JSON.parse(line));
    } catch (error) {
      throw new Error(`Line ${number + 1} is not JSON: ${error.message}`);
    }
  });
  return { messages };
}

// ---- the options ----

function whole(selector) {
  const value = $(selector).value.trim();
  return value === "" ? undefined : Number(value);
}

// The request's options from the form, then the JSON box over them (so any option the form does
// not show can still be sent, and wins).
function options() {
  const chosen = {};
  const kind = $("#strategy").value;
  const strategy = { kind };
  const keep = whole("#keep-recent");
  if (keep !== undefined) strategy.keep_recent_turns = keep;
  if (kind === "fit") {
    strategy.max_tokens = whole("#max-tokens");
    const target = whole("#target-tokens");
    if (target !== undefined) strategy.target_tokens = target;
  }
  if (kind === "token-budget") {
    strategy.threshold_tokens = whole("#threshold-tokens");
    strategy.measured = null;
  }
  if (kind !== "sliding-window" || keep !== undefined) chosen.strategy = strategy;
  const results = whole("#keep-results");
  if (results !== undefined) chosen.keep_last_tool_results = results;
  const facts = whole("#keep-facts");
  if (facts !== undefined) chosen.keep_ledger_facts = facts;
  const tokenizer = $("#tokenizer").value;
  if (tokenizer) chosen.tokenizer = tokenizer;
  const cap = whole("#cap");
  if (cap !== undefined) chosen.cap = { max_chars: cap };
  const collapse = $("#collapse").value;
  if (collapse) chosen.collapse = collapse;
  if ($("#summarize").checked) {
    chosen.summarize = {};
    const span = whole("#min-span");
    if (span !== undefined) chosen.summarize.min_span_tokens = span;
  }
  const summaries = $("#summaries").value.trim();
  if (summaries) {
    // Sent as parsed, whatever its shape: the service judges it, and its 422 names the field.
    try {
      chosen.summaries = JSON.parse(summaries);
    } catch (error) {
      throw new Error(`The summaries are not JSON: ${error.message}`);
    }
  }
  const extra = $("#options-json").value.trim();
  if (extra) {
    let parsed;
    try {
      parsed = JSON.parse(extra);
    } catch (error) {
      throw new Error(`The options JSON is not JSON: ${error.message}`);
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new Error("The options JSON must be an object.");
    }
    Object.assign(chosen, parsed);
  }
  return chosen;
}

function showStrategyFields() {
  const kind = $("#strategy").value;
  for (const label of document.querySelectorAll("label[data-for]")) {
    label.hidden = label.dataset.for !== kind;
  }
}

// ---- planning ----

function setStatus(state, text) {
  const status = $("#status");
  status.dataset.state = state;
  status.textContent = text;
}

async function plan() {
  $("#problem").hidden = true;
  let body;
  try {
    const transcript = readTranscript($("#transcript").value);
    body = { ...options(), messages: transcript.messages, format: $("#format").value };
    if (transcript.system !== undefined) body.system = transcript.system;
    // The page draws turns and shows the window: ask for both whatever the JSON box says.
    body.include_turns = true;
    body.include_window = true;
  } catch (error) {
    showProblem({ title: "The page could not read the input", detail: error.message, errors: [] });
    setStatus("error", "");
    return;
  }
  setStatus("loading", "Planning…");
  let response;
  try {
    response = await fetch(PLAN, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  } catch (error) {
    showProblem({ title: "The service did not answer", detail: String(error), errors: [] });
    setStatus("error", "");
    return;
  }
  const answer = await response.json().catch(() => null);
  if (!response.ok || !answer) {
    showProblem(answer || { title: `HTTP ${response.status}`, detail: "", errors: [] });
    setStatus("error", `${response.status}`);
    return;
  }
  draw(answer, body.messages);
  setStatus("done", `${answer.stats.turns_before} turns planned`);
}

function showProblem(problem) {
  $("#answer").hidden = true;
  const box = $("#problem");
  box.querySelector(".problem-title").textContent = problem.title || "Error";
  box.querySelector(".problem-detail").textContent = problem.detail || "";
  const list = box.querySelector(".problem-fields");
  list.replaceChildren();
  for (const error of problem.errors || []) {
    const item = document.createElement("li");
    item.className = "problem-field";
    const loc = (error.loc || []).join(".");
    item.dataset.loc = loc;
    const code = document.createElement("code");
    code.textContent = loc;
    item.append(code, ` — ${error.msg || ""}`);
    list.append(item);
  }
  box.hidden = false;
}

// ---- reading the caller's messages back (for their text and roles only) ----

function callText(name, args) {
  const shown = typeof args === "string" ? args : JSON.stringify(args ?? {});
  return `${name ?? "call"}(${shown})`;
}

function partText(part) {
  if (typeof part === "string") return part;
  if (!part || typeof part !== "object") return "";
  if (typeof part.text === "string") return part.text;
  if (part.type === "tool_use") return callText(part.name, part.input);
  if (part.type === "tool_result") return contentText(part.content);
  if (part.toolUse) return callText(part.toolUse.name, part.toolUse.input);
  if (part.toolResult) return contentText(part.toolResult.content);
  if (part.functionCall) return callText(part.functionCall.name, part.functionCall.args);
  if (part.functionResponse) return JSON.stringify(part.functionResponse.response ?? {});
  if (part.json !== undefined) return JSON.stringify(part.json);
  return "";
}

function contentText(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map(partText).filter(Boolean).join("\n");
  return "";
}

// The text a person would read of one caller message, in any of the formats.
export function messageText(message) {
  if (!message || typeof message !== "object") return JSON.stringify(message);
  const pieces = [];
  if (message.type === "function_call" || message.type === "custom_tool_call") {
    pieces.push(callText(message.name, message.arguments ?? message.input));
  } else if (message.type === "function_call_output" || message.type === "custom_tool_call_output") {
    pieces.push(contentText(message.output));
  }
  pieces.push(contentText(message.content), contentText(message.parts));
  for (const call of message.tool_calls || []) {
    const fn = call.function || call;
    pieces.push(callText(fn.name, fn.arguments));
  }
  const text = pieces.filter(Boolean).join("\n");
  return text || (message.type ? `(${message.type})` : "");
}

function hasResults(message) {
  const blocks = Array.isArray(message.content) ? message.content : message.parts || [];
  return blocks.some(
    (b) => b && (b.type === "tool_result" || b.toolResult || b.functionResponse),
  );
}

// One role per caller message: system, user, assistant or tool (a result).
export function roleOf(message) {
  if (!message || typeof message !== "object") return "user";
  const type = message.type;
  if (type === "function_call_output" || type === "custom_tool_call_output") return "tool";
  if (type && type !== "message") return "assistant";
  if (message.role === "tool" || hasResults(message)) return "tool";
  if (message.role === "model" || message.role === "assistant") return "assistant";
  if (message.role === "system" || message.role === "developer") return "system";
  return "user";
}

const ROLE_LETTERS = { system: "S", user: "U", assistant: "A", tool: "T" };

function truncate(text, limit) {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}

// ---- drawing the answer ----

function figureList(target, figures) {
  target.replaceChildren();
  for (const [name, value] of Object.entries(figures)) {
    const term = document.createElement("dt");
    term.textContent = name;
    const detail = document.createElement("dd");
    detail.textContent = typeof value === "object" ? JSON.stringify(value) : String(value);
    detail.dataset.figure = name;
    // One <div> per figure keeps a name above its value in the grid.
    const pair = document.createElement("div");
    pair.append(term, detail);
    target.append(pair);
  }
}

function badge(text, kind, title) {
  const span = document.createElement("span");
  span.className = `badge ${kind}`;
  span.textContent = text;
  if (title) span.title = title;
  return span;
}

// Which turn holds caller message `index` (the first that touches it: in formats where one caller
// message holds several core messages two turns can share it).
function turnOfMessage(turns, index) {
  return turns.find((t) => t.start <= index && index < t.start + t.length);
}

function draw(answer, messages) {
  lastAnswer = answer;
  const turns = answer.turns || [];
  const tokens = turns.some((t) => typeof t.tokens === "number");
  const measure = (t) => (tokens ? t.tokens : t.chars);
  const widest = Math.max(1, ...turns.map(measure));
  $("#measure").textContent = tokens ? "tokens" : "characters";

  const summary = $("#summary");
  summary.replaceChildren(
    badge(answer.format, "neutral", "format"),
    badge(answer.strategy, "neutral", "strategy"),
    badge(answer.engaged ? "engaged" : "not engaged", answer.engaged ? "engaged" : "neutral"),
  );
  figureList($("#stats"), answer.stats);
  $("#budget").hidden = !answer.budget;
  if (answer.budget) figureList($("#budget"), answer.budget);
  const diagnostics = $("#diagnostics");
  diagnostics.replaceChildren();
  if (answer.diagnostics.length) {
    const list = document.createElement("ul");
    list.className = "diagnostics";
    for (const found of answer.diagnostics) {
      const item = document.createElement("li");
      item.dataset.code = found.code;
      const where = found.message_index === null ? "" : ` (message ${found.message_index})`;
      item.textContent = `${found.code}${where}: ${found.detail}`;
      list.append(item);
    }
    diagnostics.append(list);
  } else {
    diagnostics.textContent = "No diagnostics.";
  }

  // The marks the answer gives each turn.
  const pins = new Map();
  for (const [kind, block] of Object.entries(answer.pins || {})) {
    for (const pin of block?.pinned || []) {
      pins.set(pin.turn_index, [...(pins.get(pin.turn_index) || []), kind.replaceAll("_", "-")]);
    }
  }
  const shaped = new Map();
  for (const entry of answer.shaped || []) {
    const turn = turnOfMessage(turns, entry.message_index);
    if (turn) shaped.set(turn.index, [...(shaped.get(turn.index) || []), entry.action]);
  }
  const current = answer.current_request ? answer.current_request.turn_index : null;

  // The notice stands where the removed span was (docs/rules.md, the drop notice): after the
  // last evicted turn, before the kept turn that follows; its window_index is shown beside it.
  const lastEvicted = Math.max(-1, ...turns.filter((t) => t.fate === "evicted").map((t) => t.index));
  let noticeDrawn = !answer.notice;

  const list = $("#turns");
  list.replaceChildren();
  for (const turn of turns) {
    if (!noticeDrawn && turn.fate === "kept" && turn.index > lastEvicted) {
      list.append(noticeRow(answer.notice));
      noticeDrawn = true;
    }
    list.append(turnRow(turn, messages, { measure, widest, tokens, pins, shaped, current }));
  }
  if (!noticeDrawn) list.append(noticeRow(answer.notice));

  drawSummaries(answer);
  $("#view-raw").textContent = JSON.stringify(answer, null, 2);
  $("#view-window").textContent =
    answer.window === undefined ? "(no window asked for)" : JSON.stringify(answer.window, null, 2);
  $("#answer").hidden = false;
}

// The summary fields appear when the request asked for summaries or sent some; each part is drawn
// from the answer as it is, with its figures in data-* attributes.
function drawSummaries(answer) {
  const asked = answer.summary_request ?? null;
  const box = $("#summary-request");
  box.hidden = !asked;
  $("#copy-status").textContent = "";
  if (asked) {
    box.dataset.from = String(asked.from);
    box.dataset.through = String(asked.through);
    box.dataset.key = asked.key;
    box.querySelector(".summary-request-span").textContent =
      `Summarize caller messages ${asked.from}–${asked.through} (key ${asked.key}): send the ` +
      "request below to the model, then paste its text as the summary of an entry with this " +
      "from, through and key.";
    $("#summary-request-json").textContent = JSON.stringify(asked.request, null, 2);
  }
  const present = "summary_used" in answer || "summaries_ignored" in answer;
  const block = $("#summaries-answer");
  block.hidden = !present;
  if (!present) return;
  const used = answer.summary_used ?? null;
  const line = $("#summary-used");
  line.dataset.from = used ? String(used.from) : "";
  line.dataset.through = used ? String(used.through) : "";
  line.textContent = used
    ? `Summary used: messages ${used.from}–${used.through}.`
    : "No summary used.";
  const ignored = $("#summaries-ignored");
  ignored.replaceChildren();
  for (const entry of answer.summaries_ignored || []) {
    const item = document.createElement("li");
    item.dataset.index = String(entry.index);
    item.dataset.reason = entry.reason;
    item.textContent = `summaries[${entry.index}] ignored: ${entry.reason}`;
    ignored.append(item);
  }
}

async function copyRequest() {
  const text = $("#summary-request-json").textContent;
  try {
    await navigator.clipboard.writeText(text);
    $("#copy-status").textContent = "Copied.";
  } catch {
    // No clipboard (an insecure origin, or permission refused): show the text selected instead.
    const details = $("#summary-request details");
    details.open = true;
    const range = document.createRange();
    range.selectNodeContents($("#summary-request-json"));
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    $("#copy-status").textContent = "Selected: copy it with the keyboard.";
  }
}

function turnRow(turn, messages, marks) {
  const row = document.createElement("li");
  row.className = `turn ${turn.fate}`;
  row.tabIndex = 0;
  row.dataset.turnIndex = String(turn.index);
  row.dataset.fate = turn.fate;
  row.dataset.heldBy = turn.held_by ?? "";
  const own = messages.slice(turn.start, turn.start + turn.length);

  const index = document.createElement("span");
  index.className = "index";
  index.textContent = String(turn.index);

  const roles = document.createElement("span");
  roles.className = "roles";
  for (const message of own) {
    const role = roleOf(message);
    const icon = document.createElement("span");
    icon.className = `role ${role}`;
    icon.textContent = ROLE_LETTERS[role];
    icon.title = role;
    roles.append(icon);
  }

  const track = document.createElement("span");
  track.className = "track";
  const bar = document.createElement("span");
  bar.className = "bar";
  bar.style.width = `${Math.max(0.5, (100 * marks.measure(turn)) / marks.widest)}%`;
  const amount = document.createElement("span");
  amount.className = "amount";
  amount.textContent = `${marks.measure(turn)} ${marks.tokens ? "tok" : "ch"}`;
  track.append(bar, amount);

  const labels = document.createElement("span");
  labels.className = "labels";
  labels.append(badge(turn.fate, turn.fate));
  if (turn.held_by) labels.append(badge(turn.held_by, "held", "held_by"));
  for (const kind of marks.pins.get(turn.index) || []) {
    labels.append(badge(`pin: ${kind}`, "pin", "pinned"));
  }
  for (const action of marks.shaped.get(turn.index) || []) {
    labels.append(badge(action, "shaped", "shaped result"));
  }
  if (turn.index === marks.current) {
    row.classList.add("current");
    labels.append(badge("current request", "current"));
  }

  const text = document.createElement("div");
  text.className = "turn-text";
  let shown = own
    .map((m, i) => `#${turn.start + i} ${roleOf(m)}: ${truncate(messageText(m), MESSAGE_CHARS)}`)
    .join("\n");
  shown = truncate(shown, TURN_CHARS);
  text.textContent = shown;
  row.setAttribute("aria-label", `turn ${turn.index}, ${turn.fate}`);

  row.append(index, roles, track, labels, text);
  return row;
}

function noticeRow(notice) {
  const row = document.createElement("li");
  // The summary message stands where the notice would (the same row, marked as the summary).
  const summary = notice.rung === "summary";
  row.className = `notice rung-${notice.rung}${summary ? " summary-message" : ""}`;
  row.tabIndex = 0;
  row.dataset.windowIndex = String(notice.window_index);
  row.dataset.rung = notice.rung;
  const label = summary ? "summary" : `notice (${notice.rung})`;
  row.append(
    badge(label, summary ? "notice summary-message" : "notice"),
    badge(`window #${notice.window_index}`, "neutral"),
    Object.assign(document.createElement("span"), {
      className: "notice-text",
      textContent: truncate(notice.content, TURN_CHARS),
    }),
  );
  return row;
}

function showView(name) {
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.setAttribute("aria-selected", String(tab.dataset.view === name));
  }
  $("#view-turns").hidden = name !== "turns";
  $("#view-raw").hidden = name !== "raw";
  $("#view-window").hidden = name !== "window";
}

// ---- bundled transcripts and files ----

async function openSample(name) {
  setStatus("loading", `Opening ${name}…`);
  const response = await fetch(`${SAMPLES}/${encodeURIComponent(name)}`);
  if (!response.ok) {
    showProblem(await response.json().catch(() => ({ title: `HTTP ${response.status}` })));
    setStatus("error", `${response.status}`);
    return false;
  }
  loadText(await response.text());
  $("#sample").value = name;
  return true;
}

function loadText(text) {
  $("#transcript").value = text;
  try {
    const transcript = readTranscript(text);
    $("#format").value = transcript.format || "auto";
  } catch {
    // Shown when planned.
  }
}

async function start() {
  showStrategyFields();
  $("#strategy").addEventListener("change", showStrategyFields);
  $("#copy-request").addEventListener("click", copyRequest);
  $("#plan-form").addEventListener("submit", (event) => {
    event.preventDefault();
    plan();
  });
  for (const tab of document.querySelectorAll("[role=tab]")) {
    tab.addEventListener("click", () => showView(tab.dataset.view));
  }
  $("#file").addEventListener("change", async () => {
    const file = $("#file").files[0];
    if (file) loadText(await file.text());
  });
  $("#sample").addEventListener("change", async () => {
    const name = $("#sample").value;
    if (name && (await openSample(name))) await plan();
  });

  const [names, info] = await Promise.all([
    fetch(SAMPLES).then((r) => (r.ok ? r.json() : [])).catch(() => []),
    fetch(INFO).then((r) => (r.ok ? r.json() : null)).catch(() => null),
  ]);
  for (const name of names) {
    $("#sample").append(new Option(name, name));
  }
  if (info) {
    const select = $("#tokenizer");
    for (const name of info.tokenizers) {
      if (![...select.options].some((o) => o.value === name)) select.append(new Option(name, name));
    }
  }
  const wanted = new URLSearchParams(location.search).get("sample");
  if (wanted) {
    if (await openSample(wanted)) await plan();
  } else {
    setStatus("ready", "");
  }
}

window.cwpViewer = { readTranscript, messageText, roleOf, answer: () => lastAnswer };
start();
