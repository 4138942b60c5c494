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

// What each `held_by` word means, in one line: the legend and each row's label read it here, so
// the page says the same thing in both places. A word missing here is still drawn, unexplained.
export const HELD_BY = {
  "current-request": "Holds the current request, the message the run is executing now.",
  "system-envelope": "Holds a system message: the instructions never leave.",
  "paused-tool": "Holds the call the run is paused on, waiting for its result.",
  "pending-check-in": "Holds the call the run is paused on to check in with a person.",
  "unresolved-tool-call": "Holds a tool call with no result yet.",
  "last-tool-result": "Pinned: a tool's latest result, kept so the model still sees it.",
  "ledger-fact": "Pinned: a result the findings ledger declares a fact.",
  "inside-keep-window": "One of the newest turns the strategy keeps (keep_recent_turns).",
  "replacement-not-smaller":
    "In a span whose removal was refused: the notice would not have been smaller than the span.",
  "not-reached":
    "After the turn that ended the span: never weighed for removal (not a refusal).",
  "within-budget":
    "Removable, but the fit strategy did not need it: the window reached its aim without it.",
};

// Which span or stage took an evicted turn: budget.spans[].stage under fit. `caps` is missing on
// purpose: it shortens texts and takes no turn.
export const TAKEN_BY = {
  span: {
    label: "the first span",
    meaning: "The span the strategy removed; a notice or summary, when there is one, takes its place.",
  },
  "further-spans": {
    label: "a further span",
    meaning:
      "Removed by fit after the first span ended, to reach target_tokens; nothing stands in its place.",
  },
  pins: {
    label: "a released pin",
    meaning: "A pinned turn fit let go because the window was still over max_tokens.",
  },
  "keep-window": {
    label: "the keep window",
    meaning:
      "A keep-window turn, removed by fit because the window was still over max_tokens.",
  },
};
// What each `shaped[].action` means, in one line (docs/rules.md): the legend and each mark's title
// read it here. The marks stand on the row of the turn that holds the entry's message_index.
export const SHAPED = {
  collapsed: "A result the findings ledger set aside (e.g. noise), sent as a short ticket.",
  cleared: "An old result the model has read, sent as a placeholder (clear).",
  capped: "A result's text shortened so the window fits max_tokens (fit).",
  "image-cleared":
    "Images in this message or its results, each replaced by a short text (clear.images): how many.",
  "thinking-cleared":
    "The model's reasoning taken from this earlier assistant message (clear.thinking); the " +
    "characters of visible reasoning it had.",
};

// A cleared or capped result keeps its tool_call_id in the window (the placeholder's
// tool_call_id, the marker's ref with recall on): the ref the recall tool takes to give the
// result back whole (docs/rules.md#recall). The mark, its title and the legend read it here.
const REFERABLE = new Set(["cleared", "capped"]);
export const RECALL_REF =
  "The result's tool_call_id: the ref to give the recall tool to get it back whole " +
  "(cleared or capped results).";

// With a single span (every strategy but a fit plan that went on to further stages) there is no
// "first" to speak of.
const ONE_SPAN = "the span";

const COUNT = new Intl.NumberFormat("en-US");

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
  if ($("#recall").checked) {
    const name = $("#recall-name").value.trim();
    chosen.recall = name ? { tool_name: name } : {};
  }
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

// budget.spans as a person reads it ("1–2 span, 4–5 further-spans"); the raw JSON is one tab away.
function spansText(spans) {
  if (!spans.length) return "none";
  const turns = (span) =>
    span.from_turn === span.through_turn
      ? `${span.from_turn}`
      : `${span.from_turn}–${span.through_turn}`;
  return spans.map((span) => `${turns(span)} ${span.stage}`).join(", ");
}

function figureText(name, value) {
  if (name === "spans" && Array.isArray(value)) return spansText(value);
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

function figureList(target, figures) {
  target.replaceChildren();
  for (const [name, value] of Object.entries(figures)) {
    const term = document.createElement("dt");
    term.textContent = name;
    const detail = document.createElement("dd");
    detail.textContent = figureText(name, value);
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
  drawBudgetWarning(answer.budget);
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
    if (turn) shaped.set(turn.index, [...(shaped.get(turn.index) || []), entry]);
  }
  const current = answer.current_request ? answer.current_request.turn_index : null;
  const taken = takenBy(answer);

  // The notice stands where the removed span was (docs/rules.md, the drop notice): after the
  // span's last turn, before the kept turn that follows; its window_index is shown beside it.
  // Under fit only the first span has a notice (further spans leave silently), so its end is
  // read from budget.spans when the answer has them.
  const first = answer.budget?.spans?.find?.((span) => span.stage === "span");
  const lastEvicted = first
    ? first.through_turn
    : Math.max(-1, ...turns.filter((t) => t.fate === "evicted").map((t) => t.index));
  let noticeDrawn = !answer.notice;

  const list = $("#turns");
  list.replaceChildren();
  for (const turn of turns) {
    if (!noticeDrawn && turn.fate === "kept" && turn.index > lastEvicted) {
      list.append(noticeRow(answer.notice));
      noticeDrawn = true;
    }
    list.append(
      turnRow(turn, messages, { measure, widest, tokens, pins, shaped, current, taken }),
    );
  }
  if (!noticeDrawn) list.append(noticeRow(answer.notice));

  drawSummaries(answer);
  drawRecallTool(answer);
  $("#view-raw").textContent = JSON.stringify(answer, null, 2);
  $("#view-window").textContent =
    answer.window === undefined ? "(no window asked for)" : JSON.stringify(answer.window, null, 2);
  $("#answer").hidden = false;
}

// A budget that is not met, above every figure. Over max_tokens is the serious case (a provider
// refuses the request); over target_tokens alone only leaves the window less room to grow.
function drawBudgetWarning(budget) {
  const box = $("#budget-warning");
  const unmet = Boolean(budget) && budget.met === false;
  box.hidden = !unmet;
  for (const key of ["totalAfter", "maxTokens", "targetTokens", "stage"]) delete box.dataset[key];
  box.dataset.budgetWarning = "";
  if (!unmet) return;
  const over = budget.total_after > budget.max_tokens;
  box.dataset.budgetWarning = over ? "over-limit" : "over-target";
  box.dataset.totalAfter = String(budget.total_after);
  box.dataset.maxTokens = String(budget.max_tokens);
  box.dataset.targetTokens = String(budget.target_tokens);
  // An answer from before the later stages has no stage: nothing is said rather than guessed.
  if (typeof budget.stage === "string") box.dataset.stage = budget.stage;
  const stage = typeof budget.stage === "string" ? ` (stage reached: ${budget.stage})` : "";
  const total = COUNT.format(budget.total_after);
  box.querySelector(".budget-warning-headline").textContent = over
    ? `Over budget: ${total} tokens against a limit of ${COUNT.format(budget.max_tokens)}${stage}`
    : `Budget not met: ${total} tokens, within the limit of ${COUNT.format(budget.max_tokens)} ` +
      `but over the target of ${COUNT.format(budget.target_tokens)}${stage}`;
  box.querySelector(".budget-warning-detail").textContent = over
    ? "total_after (the system prompt, the window and reserve_tokens) is over max_tokens: " +
      "a provider would refuse this window."
    : "total_after is over target_tokens: the window has less room to grow before the next cut.";
}

// The stage that took each evicted turn, by turn index: budget.spans when the answer has them,
// else every evicted turn is the one span's.
function takenBy(answer) {
  const spans = answer.budget?.spans;
  const taken = new Map();
  if (!Array.isArray(spans)) {
    for (const index of answer.evicted || []) taken.set(index, "span");
    return { taken, several: false };
  }
  for (const span of spans) {
    for (let index = span.from_turn; index <= span.through_turn; index += 1) {
      taken.set(index, span.stage);
    }
  }
  return { taken, several: spans.some((span) => span.stage !== "span") };
}

function takenLabel(stage, several) {
  if (stage === "span" && !several) return ONE_SPAN;
  return TAKEN_BY[stage]?.label ?? stage;
}

// A mark's words: the action, with what it took where the entry says (images, characters).
export function shapedText(entry) {
  if (entry.action === "image-cleared" && typeof entry.images === "number") {
    return `image-cleared (${entry.images} image${entry.images === 1 ? "" : "s"})`;
  }
  if (entry.action === "thinking-cleared" && typeof entry.chars_before === "number") {
    const chars = entry.chars_before;
    return `thinking-cleared (${COUNT.format(chars)} char${chars === 1 ? "" : "s"})`;
  }
  return entry.action;
}

function legendLine(badgeNode, meaning) {
  const item = document.createElement("li");
  const text = document.createElement("span");
  text.className = "meaning";
  text.textContent = meaning;
  item.append(badgeNode, " ", text);
  return item;
}

function drawLegend() {
  const held = $("#legend-held-by");
  held.replaceChildren();
  for (const [word, meaning] of Object.entries(HELD_BY)) {
    const item = legendLine(badge(word, "held"), meaning);
    item.dataset.word = word;
    held.append(item);
  }
  const taken = $("#legend-taken-by");
  taken.replaceChildren();
  for (const [stage, { label, meaning }] of Object.entries(TAKEN_BY)) {
    const item = legendLine(badge(`taken by ${label}`, "taken"), meaning);
    item.dataset.stage = stage;
    taken.append(item);
  }
  const shaped = $("#legend-shaped");
  shaped.replaceChildren();
  for (const [action, meaning] of Object.entries(SHAPED)) {
    const item = legendLine(badge(action, `shaped ${action}`), meaning);
    item.dataset.action = action;
    shaped.append(item);
  }
  const ref = legendLine(badge("ref", "ref"), RECALL_REF);
  ref.dataset.word = "ref";
  $("#legend-recall").replaceChildren(ref);
}

// The name a recall_tool declaration gives its tool, in any format's shape (docs/rules.md#recall):
// OpenAI's {function: {name}}, Bedrock's {toolSpec: {name}}, the others' {name}.
export function recallToolName(tool) {
  return tool?.function?.name ?? tool?.toolSpec?.name ?? tool?.name ?? "";
}

// With recall on the answer carries recall_tool, the declaration the agent adds to its tools; the
// page names the tool and shows the declaration as it came.
function drawRecallTool(answer) {
  const tool = answer.recall_tool ?? null;
  const box = $("#recall-tool");
  box.hidden = !tool;
  box.dataset.name = tool ? recallToolName(tool) : "";
  if (!tool) return;
  box.querySelector(".recall-tool-line").textContent =
    `Recall on: the model can call ${box.dataset.name} with a ref (marked on cleared and ` +
    "capped results) or a query, answered from the whole history by POST /v1/recall.";
  $("#recall-tool-json").textContent = JSON.stringify(tool, null, 2);
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
  const stage = turn.fate === "evicted" ? marks.taken.taken.get(turn.index) : undefined;
  row.dataset.takenBy = stage ?? "";
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
  if (stage) {
    const label = takenLabel(stage, marks.taken.several);
    labels.append(badge(`taken by ${label}`, "taken", TAKEN_BY[stage]?.meaning ?? stage));
  }
  if (turn.held_by) {
    labels.append(badge(turn.held_by, "held", HELD_BY[turn.held_by] ?? "held_by"));
  }
  for (const kind of marks.pins.get(turn.index) || []) {
    labels.append(badge(`pin: ${kind}`, "pin", "pinned"));
  }
  for (const entry of marks.shaped.get(turn.index) || []) {
    const meaning = SHAPED[entry.action] ?? "shaped";
    const mark = badge(shapedText(entry), `shaped ${entry.action}`, meaning);
    mark.dataset.shaped = entry.action;
    mark.dataset.messageIndex = String(entry.message_index);
    if (typeof entry.images === "number") mark.dataset.images = String(entry.images);
    if (entry.action === "thinking-cleared") mark.dataset.chars = String(entry.chars_before);
    labels.append(mark);
    if (REFERABLE.has(entry.action) && entry.tool_call_id) {
      const ref = badge(`ref ${entry.tool_call_id}`, "ref", RECALL_REF);
      ref.dataset.ref = entry.tool_call_id;
      ref.dataset.messageIndex = String(entry.message_index);
      labels.append(ref);
    }
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
  const why = stage
    ? `, taken by ${takenLabel(stage, marks.taken.several)}`
    : turn.held_by
      ? `, held by ${turn.held_by}`
      : "";
  row.setAttribute("aria-label", `turn ${turn.index}, ${turn.fate}${why}`);

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
  drawLegend();
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
