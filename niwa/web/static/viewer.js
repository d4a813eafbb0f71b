// The replay viewer: mountViewer(root, payload) draws the match of a payload made by
// niwa/web/replay_view.py, one frame per step, as any seat or the spectator saw it.
// Everything from the replay (bot names, notes, debug text) goes in as textContent.
// The board is drawn by the game's own renderer module, which the page loads from the
// payload's `renderer` URL (boot.js) and hands in; without one, generic.js draws it.
import * as generic from "./generic.js";
import { shareBar, summary, valueChart } from "./thinking.js";
import { scoreChart } from "./chart.js";
import { breakdownTable, failureSummary } from "./summary.js";
import { morph, patchChild } from "./morph.js";

// One step per this at 1x; the speed control divides it.
const PLAY_INTERVAL_MS = 400;
const SPEEDS = [0.5, 1, 2, 4, 8];
// A horizontal swipe on the board this long (CSS px) steps once.
const SWIPE_PX = 40;
// Legal lists up to this long are shown open; longer ones are built when opened.
const SHORT_LIST = 12;
// The address bar follows the step at most this often: Chromium ignores
// history.replaceState beyond 200 calls in 10 s (a held arrow key steps 30 times a
// second), and each call is a message to the browser process inside the frame.
const HASH_EVERY_MS = 250;

// The view after a frame's operations (replay_view.py's docstring): containers on a
// changed path are copied, the rest is shared with the frame before.
export function applyOps(base, ops) {
  const root = [base];
  const owned = new Set([root]);
  const own = (container, key) => {
    let value = container[key];
    if (!owned.has(value)) {
      value = Array.isArray(value) ? value.slice() : { ...value };
      container[key] = value;
      owned.add(value);
    }
    return value;
  };
  for (const op of ops) {
    let parent = root;
    let key = 0;
    for (const part of op[0]) {
      parent = own(parent, key);
      key = part;
    }
    if (op.length === 1) delete parent[key];
    else if (op.length === 3) own(parent, key).length = op[2];
    else parent[key] = op[1];
  }
  return root[0];
}

// Every frame's views (spectator first, then each seat), rebuilt on demand in order.
class Frames {
  constructor(frames) {
    this.frames = frames;
    this.views = [];
  }

  at(index) {
    while (this.views.length <= index) {
      const k = this.views.length;
      const ops = this.frames[k].ops;
      if (k === 0) {
        const spectator = applyOps(null, ops[0]);
        this.views.push([spectator, ...ops.slice(1).map((o) => applyOps(spectator, o ?? []))]);
      } else {
        const before = this.views[k - 1];
        this.views.push(before.map((view, s) => applyOps(view, ops[s] ?? ops[0])));
      }
    }
    return this.views[index];
  }
}

function node(tag, attrs = {}, ...children) {
  const n = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") n.textContent = String(value);
    else if (value !== undefined && value !== null) n.setAttribute(key, String(value));
  }
  for (const child of children) if (child) n.append(child);
  return n;
}

// The bot as the match named it (builtin:greedy, a directory, the ladder's name@version).
function seatName(payload, seat) {
  const s = payload.seats[seat];
  return s.bot || `${s.name} ${s.version}`.trim();
}

function ms(value) {
  return value === null || value === undefined ? "–" : `${Number(value).toFixed(1)} ms`;
}

function parseHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ""));
  const step = Number.parseInt(params.get("step") ?? "", 10);
  const seat = params.get("seat");
  return { step: Number.isNaN(step) ? null : step, seat: seat === null || seat === "" ? null : Number(seat) };
}

export function mountViewer(root, payload, renderer = generic) {
  const frames = new Frames(payload.frames);
  let last = payload.frames.length - 1; // grows as a live match's frames arrive (append)
  const state = { step: 0, seat: null, timer: null, speed: 1, interval: PLAY_INTERVAL_MS };
  const timings = { mount_ms: 0, steps_ms: [] };
  const started = performance.now();

  root.replaceChildren();
  root.classList.add("niwa-viewer");
  root.tabIndex = 0;

  // Header: the match, who sat where, how they ended, and one failure line per seat.
  const head = node("header", { class: "nv-head" });
  head.append(node("h2", { text: `${payload.version} · seed ${payload.seed}${payload.match_id ? ` · match ${payload.match_id}` : ""}` }));
  const seatList = node("ol", { class: "nv-seats", start: 0 });
  payload.seats.forEach((s, i) => {
    const li = node("li", { class: `nv-seat seat-${i % 6}` });
    li.append(node("span", { class: "nv-seat-name", text: `seat ${i}: ${seatName(payload, i)}` }));
    const r = payload.result;
    if (r) li.append(node("span", { class: "nv-place", text: ` · place ${r.places[i] + 1}, score ${r.scores[i]}` }));
    seatList.append(li);
  });
  head.append(seatList);
  const failed = failureSummary(payload, (seat) => seatName(payload, seat));
  if (failed) head.append(failed);
  if (!payload.result && !payload.live) head.append(node("p", { class: "nv-note", text: "no result line: the match was interrupted" }));

  // Controls: big enough to tap; the keys do the same (see the keydown handler).
  const controls = node("div", { class: "nv-controls" });
  const button = (label, title, action) => {
    const b = node("button", { type: "button", title, "aria-label": title, text: label });
    b.addEventListener("click", action);
    controls.append(b);
    return b;
  };
  button("«", "first step (Home)", () => show(0));
  button("‹", "step back (←)", () => show(state.step - 1));
  const playButton = button("▶", "play / pause (space)", () => togglePlay());
  playButton.classList.add("nv-play");
  button("›", "step forward (→)", () => show(state.step + 1));
  button("»", "last step (End)", () => show(last));
  const speedSelect = node("select", { class: "nv-speed", "aria-label": "playback speed" });
  for (const x of SPEEDS) speedSelect.append(node("option", { value: x, text: `${x}×` }));
  speedSelect.value = "1";
  speedSelect.addEventListener("change", () => {
    setSpeed(Number(speedSelect.value));
    speedSelect.blur();
  });
  controls.append(node("label", {}, "speed ", speedSelect));
  const jump = node("input", { type: "number", min: 0, max: last, value: 0, class: "nv-jump", "aria-label": "step" });
  jump.addEventListener("change", () => show(Number(jump.value)));
  const ofLast = node("span", { text: ` of ${last}` });
  controls.append(node("label", {}, "step ", jump, ofLast));
  const scrubber = node("input", { type: "range", min: 0, max: last, value: 0, class: "nv-scrubber", "aria-label": "scrubber" });
  scrubber.addEventListener("input", () => show(Number(scrubber.value)));
  controls.append(scrubber);
  const seatSelect = node("select", { class: "nv-seat-select", "aria-label": "seen by" });
  seatSelect.append(node("option", { value: "", text: "spectator (full view)" }));
  payload.seats.forEach((_, i) => seatSelect.append(node("option", { value: i, text: `seat ${i}: ${seatName(payload, i)}` })));
  seatSelect.addEventListener("change", () => {
    state.seat = seatSelect.value === "" ? null : Number(seatSelect.value);
    show(state.step);
    seatSelect.blur(); // the arrow keys step through the match again, not the seats
  });
  controls.append(node("label", {}, "seen by ", seatSelect));
  seatSelect.disabled = Boolean(payload.live); // a live match shows the spectator only
  const scoreView = scoreChart(payload, (i) => show(i));

  const main = node("div", { class: "nv-main" });
  const board = node("div", { class: "nv-board" });
  const side = node("aside", { class: "nv-moves" });
  main.append(board, side);
  root.append(head, controls);
  if (scoreView) root.append(scoreView.node);
  root.append(main);
  const chart = valueChart(payload);
  if (chart) root.append(chart.node);
  const endTable = breakdownTable(payload);

  // A swipe across the board steps (touch or pen; a mouse drag too).
  let swipeFrom = null;
  board.addEventListener("pointerdown", (event) => { swipeFrom = [event.clientX, event.clientY]; });
  board.addEventListener("pointerup", (event) => {
    if (!swipeFrom) return;
    const dx = event.clientX - swipeFrom[0];
    const dy = event.clientY - swipeFrom[1];
    swipeFrom = null;
    if (Math.abs(dx) >= SWIPE_PX && Math.abs(dx) > 2 * Math.abs(dy)) show(state.step + (dx < 0 ? 1 : -1));
  });
  board.addEventListener("pointercancel", () => { swipeFrom = null; });

  function movesPanel(index) {
    const frame = payload.frames[index];
    const parts = [];
    const toMove = frame.to_move.map((s) => (s < 0 ? "chance" : `seat ${s}`)).join(", ");
    parts.push(node("h3", { text: frame.over ? `step ${index}: game over` : `step ${index}: ${toMove} to move` }));
    frame.moves.forEach((m, k) => {
      const box = node("section", { class: `nv-move${m.seat >= 0 && m.status !== "OK" ? " nv-failed" : ""}` });
      if (m.seat < 0) {
        box.append(node("p", { class: "nv-chance", text: `chance: ${m.text}` }));
        parts.push(box);
        return;
      }
      box.append(node("p", { class: "nv-what", text: m.text }));
      const facts = `${m.status} · ${ms(m.wall_ms)} wall, ${ms(m.cpu_ms)} cpu · clock ${m.clock_ms === null ? "–" : `${(m.clock_ms / 1000).toFixed(1)} s`}`;
      box.append(node("p", { class: "nv-facts", text: facts }));
      if (m.detail) box.append(node("p", { class: "nv-detail", text: m.detail }));
      if (m.note) box.append(node("p", { class: "nv-note", text: `note: ${m.note}` }));
      if (m.debug) box.append(node("pre", { class: "nv-debug", text: m.debug }));
      box.append(summary(m) ?? "");
      const more = m.legal_count > m.legal.length ? ` (first ${m.legal.length} shown)` : "";
      const details = node("details", { "data-move": k }, node("summary", { text: `${m.legal_count} legal${more}` }));
      // A long list is built when opened (fillLegal): stepping stays fast through wide
      // decisions.
      if (m.legal_count <= SHORT_LIST) {
        fillLegal(details, m);
        details.open = true;
      }
      box.append(details);
      parts.push(box);
    });
    // a copy: the panel is patched from this drawing (morph.js), which takes its nodes
    if (frame.over && endTable) parts.push(endTable.cloneNode(true));
    return parts;
  }

  // The legal list of move `m` in its `details`, once. The panel is patched in place,
  // so a details element outlives its step: the one listener is the panel's, and it
  // finds the move by the shown step and the element's data-move (the move's index).
  function fillLegal(details, m) {
    if (details.childElementCount > 1) return;
    const legal = node("ol", { class: "nv-legal", start: 0 });
    m.legal.forEach((action, i) => {
      const words = m.legal_text ? m.legal_text[i] : action;
      legal.append(node("li", { class: i === m.chosen ? "nv-chosen" : "", title: action }, shareBar(m, i), node("span", { text: words })));
    });
    details.append(legal);
  }
  // toggle does not bubble: caught on the way down
  side.addEventListener("toggle", (event) => {
    const details = event.target;
    if (!(details instanceof HTMLDetailsElement) || !details.open || details.dataset.move === undefined) return;
    const m = payload.frames[state.step].moves[Number(details.dataset.move)];
    if (m) fillLegal(details, m);
  }, true);

  function show(index, fromHash = false) {
    const t0 = performance.now();
    const step = Math.max(0, Math.min(last, Number.isFinite(index) ? Math.trunc(index) : 0));
    state.step = step;
    const views = frames.at(step);
    const view = state.seat === null ? views[0] : views[state.seat + 1];
    patchChild(board, renderer.draw(view, payload, { step, seat: state.seat }));
    // Patched like the board: only what differs from the last step is restyled.
    morph(side, node("aside", { class: "nv-moves" }, ...movesPanel(step)));
    chart?.mark(step);
    jump.value = String(step);
    scrubber.value = String(step);
    seatSelect.value = state.seat === null ? "" : String(state.seat);
    if (scoreView) scoreView.mark(step);
    if (!fromHash) followInHash();
    if (step === last && state.timer !== null) togglePlay();
    timings.steps_ms.push(performance.now() - t0);
  }

  // At once after a pause, else once the interval is over, with the step shown then.
  let hashWritten = -Infinity;
  let hashTimer = null;
  function writeHash() {
    hashTimer = null;
    hashWritten = performance.now();
    const hash = `#step=${state.step}${state.seat === null ? "" : `&seat=${state.seat}`}`;
    if (location.hash !== hash) history.replaceState(null, "", hash);
  }
  function followInHash() {
    if (hashTimer !== null) return;
    const wait = hashWritten + HASH_EVERY_MS - performance.now();
    if (wait <= 0) writeHash();
    else hashTimer = setTimeout(writeHash, wait);
  }

  function togglePlay() {
    if (state.timer !== null) {
      clearInterval(state.timer);
      state.timer = null;
    } else {
      if (state.step === last) show(0);
      state.timer = setInterval(() => show(state.step + 1), state.interval);
    }
    playButton.textContent = state.timer === null ? "▶" : "❙❙";
    playButton.classList.toggle("nv-playing", state.timer !== null);
  }

  // A new speed takes effect at once, also while playing.
  function setSpeed(speed) {
    const x = SPEEDS.includes(speed) ? speed : 1;
    state.speed = x;
    state.interval = PLAY_INTERVAL_MS / x;
    speedSelect.value = String(x);
    if (state.timer !== null) {
      clearInterval(state.timer);
      state.timer = setInterval(() => show(state.step + 1), state.interval);
    }
  }

  function faster(by) {
    const i = SPEEDS.indexOf(state.speed) + by;
    setSpeed(SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, i))]);
  }

  function fromHash() {
    const h = parseHash();
    const seats = payload.seats.length;
    state.seat = h.seat !== null && Number.isInteger(h.seat) && h.seat >= 0 && h.seat < seats ? h.seat : null;
    show(h.step ?? state.step, true);
  }

  window.addEventListener("hashchange", fromHash);
  // Keys work anywhere on the page but in the viewer's own inputs, which use them.
  document.addEventListener("keydown", (event) => {
    const t = event.target;
    if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
    const keys = {
      ArrowRight: () => show(state.step + 1),
      ArrowLeft: () => show(state.step - 1),
      Home: () => show(0),
      End: () => show(last),
      " ": () => togglePlay(),
      "+": () => faster(1),
      "=": () => faster(1),
      "-": () => faster(-1),
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });

  // A live match's new frames (live.js): the viewer follows them unless stepped back.
  function append(more) {
    const following = state.step === last;
    payload.frames.push(...more);
    last = payload.frames.length - 1;
    jump.max = scrubber.max = String(last);
    ofLast.textContent = ` of ${last}`;
    scoreView?.update();
    if (following) show(last);
  }

  fromHash();
  timings.mount_ms = performance.now() - started;
  timings.ready_ms = performance.now(); // since the page's navigation began
  return { show, timings, state, views: (i) => frames.at(i), togglePlay, setSpeed, append };
}
