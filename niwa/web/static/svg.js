// SVG built with DOM calls only: every string a bot or a replay controls goes in as
// textContent or an attribute value, never as markup, so nothing in it can run.
const NS = "http://www.w3.org/2000/svg";

export const SEAT_COLOURS = ["#d1495b", "#2e86ab", "#edae49", "#66a182", "#8d6a9f", "#00798c"];

export function seatColour(seat) {
  return SEAT_COLOURS[((seat % SEAT_COLOURS.length) + SEAT_COLOURS.length) % SEAT_COLOURS.length];
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  // for...in, not Object.entries: a board is hundreds of calls a step, and the garbage
  // of an array per call brings the collector into the frame sooner.
  for (const key in attrs) {
    const value = attrs[key];
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

export function text(x, y, value, attrs = {}) {
  const node = el("text", { x, y, ...attrs });
  node.textContent = String(value);
  return node;
}

// A number the tests read back: data-field names what it is, data-seat whose.
export function field(x, y, name, seat, value, attrs = {}) {
  return text(x, y, value, { "data-field": name, "data-seat": seat, ...attrs });
}

export function canvas(width, height, label) {
  const svg = el("svg", {
    viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "nv-svg",
  });
  svg.append(el("rect", { x: 0, y: 0, width, height, fill: "#fbf8f1" }));
  const title = el("title");
  title.textContent = label;
  svg.append(title);
  return svg;
}

// "seat 1 (you)" for the viewer's own seat.
export function seatLabel(seat, view) {
  return view.seat === seat ? `seat ${seat} (you)` : `seat ${seat}`;
}

// The words the game's rules data give an id (the payload's glossary), else the id.
export function words(payload, id) {
  const glossary = payload && payload.glossary;
  return glossary && Object.hasOwn(glossary, id) ? glossary[id] : id;
}

// One line of text in pieces, each piece [words, part]: a piece with a part is a tspan
// tagged data-part, a board part a person at the table may click. The text reads the
// same as one text() of the pieces joined.
export function partText(x, y, pieces, attrs = {}) {
  const node = el("text", { x, y, ...attrs });
  for (const [words, part] of pieces) {
    const span = el("tspan", { "data-part": part });
    span.textContent = String(words);
    node.append(span);
  }
  return node;
}

// A part of a board drawn from `inputs` alone (objects of the view and plain values,
// compared with ===), kept under `slot`, a name for the part. The viewer's frames share
// an object with the frame before while it is unchanged (replay_view.py's ops), so a
// step draws again only the parts whose inputs changed. The rest is the last drawing
// itself, lent, not copied: new nodes each step would bring the collector into the
// frames. A lent node is marked `niwaLent`; whoever puts a drawing on a page copies
// what is lent (morph.js does, and its adopt() for a board replaced whole), so the
// page never holds, and never changes, the kept drawing. `build` must not use reuse()
// itself: a lent part inside another would be moved out of it when lent again. One
// drawing is kept per slot: memory does not grow with the replay.
const lastDrawn = new Map();

export function reuse(slot, inputs, build) {
  const last = lastDrawn.get(slot);
  if (last && last.inputs.length === inputs.length && last.inputs.every((v, k) => v === inputs[k])) {
    return last.node;
  }
  const node = build();
  node.niwaLent = true;
  lastDrawn.set(slot, { inputs, node });
  return node;
}
