// Sakura: the path of spaces (bridges, torii, sakura trees scored or not), the painters
// and the Emperor on it, tokens, the cards played this round and the viewer's hand,
// from the observation (docs/games/sakura.md).
import { canvas, el, field, reuse, seatColour, seatLabel, text, words } from "../svg.js";

const PER_ROW = 10;
const CELL = 64;
const GATE = 0;
// Cards drawn three to a row, wide enough for their actions in words.
const CARD_W = 220;
const CARDS_PER_ROW = 3;

function painterName(view, p) {
  return p === view.court ? "court painter" : seatLabel(p, view);
}

function spaceXY(q) {
  // A path that snakes: left to right, then right to left, ten spaces a row.
  const r = Math.floor((q - 1) / PER_ROW);
  const i = (q - 1) % PER_ROW;
  const c = r % 2 === 0 ? i : PER_ROW - 1 - i;
  return [60 + c * CELL, 70 + r * CELL];
}

// A card: its order number, then its garden action and its painter action in words.
// part: the board part a person at the table may click (data-part).
function cardBox(x, y, card, label, colour, payload, part = undefined) {
  const g = el("g", { class: "card", "data-card": card.number, "data-part": part });
  g.append(el("rect", { x, y, width: CARD_W - 8, height: 46, rx: 5, fill: "#fff", stroke: colour, "stroke-width": 2 }));
  g.append(text(x + 6, y + 14, `#${card.number} ${label}`, { "font-size": 10, "font-weight": "bold" }));
  g.append(text(x + 6, y + 28, `garden: ${words(payload, card.garden)}`, { "font-size": 10 }));
  g.append(text(x + 6, y + 40, `painter: ${words(payload, card.painter)}`, { "font-size": 10 }));
  return g;
}

function cardXY(top, i) {
  return [12 + (i % CARDS_PER_ROW) * CARD_W, top + 18 + Math.floor(i / CARDS_PER_ROW) * 56];
}

// The garden path as the board shows it (sakura.md §4): a gravel trail from the gate
// through stepping stones, wooden bridges over a stream, the red torii, and the three
// sakura trees in blossom (faded once scored); painters as pawns, the Emperor gold.
const STONE_R = 22;

function centre(q) {
  const [x, y] = spaceXY(q);
  return [x + (CELL - 6) / 2, y + (CELL - 6) / 2];
}

function titled(node, words) {
  const t = el("title");
  t.textContent = words;
  node.append(t);
  return node;
}

function gateIcon(x, y) {
  const g = el("g", { class: "gate" });
  g.append(el("rect", { x: x - 14, y: y - 12, width: 4, height: 24, fill: "#6d4c41" }));
  g.append(el("rect", { x: x + 10, y: y - 12, width: 4, height: 24, fill: "#6d4c41" }));
  g.append(el("path", { d: `M${x - 18} ${y - 12} L${x} ${y - 22} L${x + 18} ${y - 12} Z`, fill: "#5d4037" }));
  return titled(g, "the gate: painters start here");
}

function toriiIcon(cx, cy) {
  const g = el("g", { class: "torii" });
  const red = "#c62828";
  g.append(el("rect", { x: cx - 11, y: cy - 8, width: 4, height: 22, fill: red }));
  g.append(el("rect", { x: cx + 7, y: cy - 8, width: 4, height: 22, fill: red }));
  g.append(el("path", { d: `M${cx - 18} ${cy - 14} Q${cx} ${cy - 19} ${cx + 18} ${cy - 14} L${cx + 16} ${cy - 10} L${cx - 16} ${cy - 10} Z`, fill: "#3e2723" }));
  g.append(el("rect", { x: cx - 15, y: cy - 5, width: 30, height: 3, fill: red }));
  return titled(g, "the torii: the Emperor starts here");
}

function blossom(cx, cy, scored) {
  const g = el("g", { class: "sakura-tree", opacity: scored ? 0.45 : 1 });
  g.append(el("rect", { x: cx - 2, y: cy + 4, width: 4, height: 14, fill: "#6d4c41" }));
  for (let k = 0; k < 5; k += 1) {
    const a = (Math.PI * 2 * k) / 5 - Math.PI / 2;
    g.append(el("circle", { cx: cx + 7 * Math.cos(a), cy: cy + 7 * Math.sin(a), r: 6, fill: "#f8bbd0", stroke: "#ec407a", "stroke-width": 0.8 }));
  }
  g.append(el("circle", { cx, cy, r: 3, fill: "#fff176" }));
  return titled(g, scored ? "a sakura tree, already scored" : "a sakura tree: painters score when the Emperor reaches it");
}

function bridge(cx, cy) {
  const g = el("g", { class: "bridge" });
  g.append(el("path", { d: `M${cx - 30} ${cy - 6} q8 -6 15 0 t15 0 t15 0 t15 0 M${cx - 30} ${cy + 6} q8 -6 15 0 t15 0 t15 0 t15 0`, stroke: "#64b5f6", "stroke-width": 5, fill: "none", opacity: 0.8 }));
  g.append(el("rect", { x: cx - 20, y: cy - 16, width: 40, height: 32, rx: 6, fill: "#a1887f", stroke: "#5d4037" }));
  for (let k = -12; k <= 12; k += 8) g.append(el("line", { x1: cx + k, y1: cy - 16, x2: cx + k, y2: cy + 16, stroke: "#6d4c41" }));
  return titled(g, "a bridge over the stream");
}

function pawn(cx, cy, colour, label, painter) {
  const g = el("g", { class: "painter", "data-painter": painter, "data-part": `painter:${painter}` });
  g.append(el("path", { d: `M${cx - 7} ${cy + 10} L${cx - 3.5} ${cy - 1} L${cx + 3.5} ${cy - 1} L${cx + 7} ${cy + 10} Z`, fill: colour, stroke: "#000", "stroke-width": 0.8 }));
  g.append(el("circle", { cx, cy: cy - 5, r: 5.5, fill: colour, stroke: "#000", "stroke-width": 0.8 }));
  return titled(g, label);
}

// The trail and its spaces, drawn from the board and the trees scored alone.
function spaces(board, scored) {
  const out = el("g", { class: "spaces" });
  const bridges = new Set(board.bridges.flat());
  const sakura = new Map(board.sakura.map((q, i) => [q, i]));
  const [gx, gy] = centre(1);
  const trail = [[gx - CELL + 14, gy]];
  for (let q = 1; q <= board.length; q += 1) trail.push(centre(q));
  out.append(el("polyline", { points: trail.map(([x, y]) => `${x},${y}`).join(" "), fill: "none", stroke: "#d7ccc8", "stroke-width": 34, "stroke-linejoin": "round", "stroke-linecap": "round" }));
  out.append(gateIcon(gx - CELL + 14, gy));
  for (let q = 1; q <= board.length; q += 1) {
    const [cx, cy] = centre(q);
    const g = el("g", { class: "space", "data-space": q });
    if (bridges.has(q)) g.append(bridge(cx, cy));
    else g.append(el("circle", { cx, cy, r: STONE_R, fill: "#eceff1", stroke: "#90a4ae", "stroke-width": 1.5 }));
    if (q === board.torii) g.append(toriiIcon(cx, cy));
    if (sakura.has(q)) g.append(blossom(cx + 12, cy - 8, scored[sakura.get(q)]));
    g.append(text(cx - STONE_R + 2, cy - STONE_R + 6, q, { "font-size": 10, fill: "#37474f" }));
    out.append(g);
  }
  return out;
}

function garden(view, board) {
  const out = el("g", { class: "path" });
  // The spaces change only when a tree is scored: redrawn then (svg.js reuse; lent,
  // so nothing is added to them here).
  out.append(reuse("sakura-spaces", [board, view.scored], () => spaces(board, view.scored)));
  const [gx, gy] = centre(1);
  // The Emperor's palanquin, then the painters side by side on their space.
  const [ex, ey] = centre(view.emperor);
  const emperor = el("g", { class: "emperor", "data-emperor": view.emperor, "data-part": "emperor" });
  emperor.append(el("path", { d: `M${ex + 4} ${ey + 20} l0 -12 l8 -8 l8 8 l0 12 Z`, fill: "#ffd54f", stroke: "#5d4037" }));
  emperor.append(el("rect", { x: ex - 1, y: ey + 19, width: 30, height: 3, fill: "#5d4037" }));
  out.append(titled(emperor, "the Emperor"));
  const bySpace = new Map();
  view.painters.forEach((q, p) => {
    if (q !== GATE) bySpace.set(q, [...(bySpace.get(q) || []), p]);
  });
  const atGate = view.painters.map((q, p) => [q, p]).filter(([q]) => q === GATE).map(([, p]) => p);
  if (atGate.length) bySpace.set(GATE, atGate);
  for (const [q, ps] of bySpace) {
    const [cx, cy] = q === GATE ? [gx - CELL + 14, gy + 26] : centre(q);
    ps.forEach((p, i) => {
      const x = cx - 13 + (i % 3) * 13;
      const y = cy + 4 + Math.floor(i / 3) * 12 - (q === GATE ? 0 : 6);
      out.append(pawn(x, y, p === view.court ? "#424242" : seatColour(p), painterName(view, p), p));
    });
  }
  return out;
}

export function draw(view, payload) {
  const board = view.board;
  const rows = Math.ceil(board.length / PER_ROW);
  const painters = view.painters.length;
  const handRows = view.hand ? Math.ceil(view.hand.length / CARDS_PER_ROW) : 0;
  const playedRows = Math.ceil(view.played.length / CARDS_PER_ROW);
  const pathBottom = 70 + rows * CELL;
  const height = pathBottom + 40 + painters * 22 + (playedRows + handRows) * 56 + 60;
  const svg = canvas(700, height, `Sakura, round ${view.round}`);
  svg.append(text(12, 22, `Sakura · round ${view.round} · ${view.phase}`, { "font-size": 16, "font-weight": "bold" }));
  svg.append(text(360, 22, "deck", { "font-size": 13 }));
  svg.append(field(395, 22, "deck", -1, view.deck_size, { "font-size": 13 }));
  svg.append(text(440, 22, `discard ${view.discard.length} · supply ${view.supply}`, { "font-size": 13 }));
  const gate = view.painters.map((q, p) => [q, p]).filter(([q]) => q === GATE).map(([, p]) => p);
  svg.append(text(12, 48, `gate: ${gate.length ? gate.map((p) => painterName(view, p)).join(", ") : "–"}`, { "font-size": 12 }));

  svg.append(garden(view, board));
  let y = pathBottom + 20;
  view.tokens.forEach((t, p) => {
    const name = painterName(view, p);
    const hand = p < view.hand_sizes.length ? view.hand_sizes[p] : null;
    svg.append(el("circle", { cx: 20, cy: y - 4, r: 6, fill: p === view.court ? "#444" : seatColour(p) }));
    svg.append(text(32, y, name, { "font-size": 13 }));
    svg.append(text(170, y, "tokens", { "font-size": 12 }));
    svg.append(field(220, y, "tokens", p, t, { "font-size": 14, "font-weight": "bold" }));
    if (hand !== null) {
      svg.append(text(260, y, "cards in hand", { "font-size": 12 }));
      svg.append(field(350, y, "hand", p, hand, { "font-size": 14 }));
    }
    y += 22;
  });
  if (view.played.length) {
    svg.append(text(12, y + 12, "played this round", { "font-size": 12 }));
    view.played.forEach((entry, i) => {
      const status = i === view.cursor && view.phase === "resolve" ? `resolving ${view.step}` : entry.status;
      svg.append(cardBox(...cardXY(y, i), entry.card, `${painterName(view, entry.painter)} · ${status}`, seatColour(entry.painter), payload));
    });
    y += 18 + playedRows * 56;
  }
  if (view.hand) {
    svg.append(text(12, y + 12, `your hand (seat ${view.seat})`, { "font-size": 12 }));
    view.hand.forEach((card, i) => {
      svg.append(cardBox(...cardXY(y, i), card, "", seatColour(view.seat), payload, `card:${card.number}`));
    });
  }
  return svg;
}
