// A person's seat (niwa/web/human.py): the seat's view drawn by the game's renderer,
// its legal moves in words, the clock. Each legal move names the board parts it
// touches (Game.board_parts); the renderer tags those SVG elements with data-part, so a
// click on one plays the only move that uses it, or opens a chooser of the few that
// do. The move list is the fallback for moves without a part. Text goes in as
// textContent only.
import * as generic from "./generic.js";
import { adopt } from "./morph.js";

const root = document.getElementById("niwa-human");
const key = root.dataset.key;
const seat = Number(root.dataset.seat);
const names = JSON.parse(root.dataset.names);
// What the renderer reads of a viewer's payload here: the words for card and goal ids.
const payload = { glossary: JSON.parse(root.dataset.glossary) };
const board = document.getElementById("human-board");
const status = document.getElementById("human-status");
const clock = document.getElementById("human-clock");
const error = document.getElementById("human-error");
const chooser = document.getElementById("human-chooser");
const list = document.getElementById("human-moves");
const result = document.getElementById("human-result");
const renderer = root.dataset.renderer ? await import(root.dataset.renderer) : generic;

let current = null; // the question waiting, or null
let deadline = 0; // when its time runs out (performance.now() ms)
let sending = false;

function button(move) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.index = move.index;
  b.textContent = move.text;
  b.addEventListener("click", () => play(move.index));
  return b;
}

async function play(index) {
  if (!current || sending) return;
  sending = true;
  root.dataset.sent = current.decision; // what the page last answered (tests read it)
  chooser.hidden = true;
  error.textContent = "";
  try {
    const answer = await fetch(`/play/${key}/move`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: current.decision, index }),
    });
    if (!answer.ok) {
      const body = await answer.json().catch(() => ({}));
      error.textContent = body.error || `the move was refused (${answer.status})`;
    }
  } catch (e) {
    error.textContent = `the move could not be sent: ${e}`;
  } finally {
    sending = false;
  }
}

function choose(part, moves) {
  if (moves.length === 1) {
    play(moves[0].index);
    return;
  }
  chooser.replaceChildren();
  const title = document.createElement("p");
  title.textContent = `${moves.length} moves use this:`;
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.className = "hu-cancel";
  cancel.textContent = "cancel";
  cancel.addEventListener("click", () => { chooser.hidden = true; });
  chooser.append(title, ...moves.map(button), cancel);
  chooser.dataset.part = part;
  chooser.hidden = false;
}

// Mark every board part some legal move uses, and make it choose among those moves.
function targets(question) {
  const byPart = new Map();
  for (const move of question.moves) {
    for (const part of move.parts) byPart.set(part, [...(byPart.get(part) || []), move]);
  }
  for (const node of board.querySelectorAll("[data-part]")) {
    const moves = byPart.get(node.dataset.part);
    if (!moves) continue;
    node.classList.add("hu-target");
    node.addEventListener("click", (event) => {
      event.stopPropagation();
      choose(node.dataset.part, moves);
    });
  }
}

function describeResult(snapshot) {
  if (!snapshot.result) return snapshot.note || "the match is over";
  const { scores, places } = snapshot.result;
  const order = places.map((p, s) => [p, s]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const lines = order.map(([p, s]) => `${p + 1}. ${s === seat ? "you" : names[s]} (${scores[s]})`);
  return `Match over: you placed ${places[seat] + 1} of ${places.length}. ${lines.join(", ")}`;
}

function show(snapshot) {
  const question = snapshot.question;
  current = question;
  root.dataset.version = snapshot.version;
  chooser.hidden = true;
  if (snapshot.view) {
    // adopt: the page marks and listens on its parts, so it takes its own copy of any
    // part the renderer lent (svg.js reuse)
    board.replaceChildren(adopt(renderer.draw(snapshot.view, payload, { step: 0, seat })));
  }
  list.replaceChildren(...(question ? question.moves.map((m) => {
    const item = document.createElement("li");
    item.append(button(m));
    return item;
  }) : []));
  if (question) {
    targets(question);
    deadline = performance.now() + question.time_left_ms;
    root.dataset.decision = question.decision;
  }
  if (snapshot.closed) {
    events.close(); // the server stops soon after: no reconnecting to it
    root.dataset.state = "over";
    status.textContent = snapshot.result ? "the match is over" : snapshot.note;
    result.textContent = describeResult(snapshot);
  } else {
    root.dataset.state = question ? "asked" : "waiting";
    status.textContent = question ? "your move" : (snapshot.note || "waiting for the others");
  }
  tick();
}

function tick() {
  if (!current) {
    clock.textContent = "";
    return;
  }
  const left = Math.max(0, deadline - performance.now()) / 1000;
  const m = Math.floor(left / 60);
  const s = Math.floor(left % 60);
  clock.textContent = `time left ${m}:${String(s).padStart(2, "0")}`;
}

setInterval(tick, 500);
const events = new EventSource(`/play/${key}/events`);
events.onmessage = (message) => show(JSON.parse(message.data));
events.onerror = () => {
  if (root.dataset.state !== "over") status.textContent = "reconnecting…";
};
window.niwaHuman = { events };
