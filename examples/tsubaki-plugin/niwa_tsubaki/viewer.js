// Tsubaki's replay-viewer renderer: the trump card, each seat's bid, tricks and score,
// the trick on the table and (for a seat's own view) the hand, drawn from the
// observation alone (tsubaki.md §8). DOM calls only: strings from a replay go in as
// textContent or attribute values, never as markup.
const NS = "http://www.w3.org/2000/svg";
const COLOURS = ["#d1495b", "#2e86ab", "#edae49", "#66a182", "#8d6a9f"];
const RED = new Set(["D", "H"]);
const PIPS = { C: "♣", D: "♦", H: "♥", S: "♠" };

function el(tag, attrs = {}) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, String(value));
  }
  return node;
}

function label(x, y, value, attrs = {}) {
  const node = el("text", { x, y, ...attrs });
  node.textContent = String(value);
  return node;
}

function card(x, y, code, attrs = {}) {
  const g = el("g", { class: "card", "data-card": code, ...attrs });
  g.append(el("rect", { x, y, width: 40, height: 56, rx: 5, fill: "#fff", stroke: "#555" }));
  const colour = RED.has(code[1]) ? "#c0392b" : "#222";
  g.append(label(x + 20, y + 26, code[0] === "T" ? "10" : code[0], { "text-anchor": "middle", "font-size": 16, fill: colour }));
  g.append(label(x + 20, y + 46, PIPS[code[1]] ?? code[1], { "text-anchor": "middle", "font-size": 16, fill: colour }));
  return g;
}

// The SVG picture of one observation.
export function draw(view) {
  const n = view.players;
  const width = 640;
  const height = 150 + n * 26 + 90;
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "nv-svg" });
  svg.append(el("rect", { x: 0, y: 0, width, height, fill: "#f4f1e8" }));
  svg.append(label(12, 22, `Tsubaki · round ${view.round + 1}/${view.rounds} · ${view.hand_size} card(s) · ${view.phase}`, { "font-size": 16, "font-weight": "bold" }));
  svg.append(label(12, 46, "trumps", { "font-size": 12 }));
  if (view.trump) svg.append(card(60, 30, view.trump, { "data-field": "trump" }));
  svg.append(label(120, 46, "trick", { "font-size": 12 }));
  view.trick.forEach(([seat, code], i) => {
    svg.append(card(160 + i * 48, 30, code, { "data-seat": seat }));
    svg.append(label(180 + i * 48, 100, `seat ${seat}`, { "font-size": 9, "text-anchor": "middle", fill: COLOURS[seat % COLOURS.length] }));
  });
  for (let s = 0; s < n; s += 1) {
    const y = 130 + s * 26;
    const bid = view.bids[s] === null ? "–" : view.bids[s];
    const mark = s === view.dealer ? " (dealer)" : "";
    const row = `seat ${s}${mark}: bid ${bid} · tricks ${view.tricks_won[s]} · score ${view.scores[s]} · ${view.hand_counts[s]} card(s)`;
    svg.append(label(12, y, row, { "font-size": 13, fill: COLOURS[s % COLOURS.length], "data-field": "seat", "data-seat": s }));
  }
  if (Array.isArray(view.hand)) {
    const y = 140 + n * 26;
    svg.append(label(12, y + 30, "hand", { "font-size": 12 }));
    view.hand.forEach((code, i) => svg.append(card(50 + i * 44, y, code, { "data-field": "hand" })));
  }
  return svg;
}

// The hook's shape (branch plugin): draw into a container.
export function render(container, observation) {
  container.replaceChildren(draw(observation));
}
