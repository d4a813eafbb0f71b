// Sakura: the path of spaces (bridges, torii, sakura trees scored or not), the painters
// and the Emperor on it, tokens, the cards played this round and the viewer's hand,
// from the observation (docs/games/sakura.md).
import { canvas, el, field, seatColour, seatLabel, text, words } from "../svg.js";

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
  return [20 + c * CELL, 70 + r * CELL];
}

// A card: its order number, then its garden action and its painter action in words.
function cardBox(x, y, card, label, colour, payload) {
  const g = el("g", { class: "card", "data-card": card.number });
  g.append(el("rect", { x, y, width: CARD_W - 8, height: 46, rx: 5, fill: "#fff", stroke: colour, "stroke-width": 2 }));
  g.append(text(x + 6, y + 14, `#${card.number} ${label}`, { "font-size": 10, "font-weight": "bold" }));
  g.append(text(x + 6, y + 28, `garden: ${words(payload, card.garden)}`, { "font-size": 10 }));
  g.append(text(x + 6, y + 40, `painter: ${words(payload, card.painter)}`, { "font-size": 10 }));
  return g;
}

function cardXY(top, i) {
  return [12 + (i % CARDS_PER_ROW) * CARD_W, top + 18 + Math.floor(i / CARDS_PER_ROW) * 56];
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

  const bridges = new Set(board.bridges.flat());
  const sakura = new Map(board.sakura.map((q, i) => [q, i]));
  for (let q = 1; q <= board.length; q += 1) {
    const [x, y] = spaceXY(q);
    let fill = "#e9e4d4";
    if (bridges.has(q)) fill = "#c49a6c";
    if (q === board.torii) fill = "#e4572e";
    if (sakura.has(q)) fill = view.scored[sakura.get(q)] ? "#d9b8c4" : "#f7a1c4";
    const g = el("g", { class: "space", "data-space": q });
    g.append(el("rect", { x, y, width: CELL - 6, height: CELL - 6, rx: 8, fill, stroke: "#777" }));
    g.append(text(x + 4, y + 12, q, { "font-size": 10, fill: "#333" }));
    if (sakura.has(q)) g.append(text(x + CELL - 10, y + 12, view.scored[sakura.get(q)] ? "✓" : "✿", { "font-size": 11, "text-anchor": "end" }));
    if (q === board.torii) g.append(text(x + CELL - 10, y + 12, "torii", { "font-size": 9, "text-anchor": "end", fill: "#fff" }));
    svg.append(g);
  }
  // Pieces: the Emperor, then painters in a row inside their space.
  const bySpace = new Map();
  view.painters.forEach((q, p) => {
    if (q !== GATE) bySpace.set(q, [...(bySpace.get(q) || []), p]);
  });
  for (const [q, ps] of bySpace) {
    const [x, y] = spaceXY(q);
    ps.forEach((p, i) => {
      const cx = x + 12 + (i % 3) * 16;
      const cy = y + 30 + Math.floor(i / 3) * 16;
      svg.append(el("circle", { cx, cy, r: 7, fill: p === view.court ? "#444" : seatColour(p), stroke: "#000", "data-painter": p }));
      svg.append(text(cx, cy + 3, p === view.court ? "C" : p, { "font-size": 9, "text-anchor": "middle", fill: "#fff" }));
    });
  }
  const [ex, ey] = spaceXY(view.emperor);
  svg.append(el("rect", { x: ex + CELL - 26, y: ey + CELL - 26, width: 16, height: 16, fill: "#ffd400", stroke: "#000", "data-emperor": view.emperor }));
  svg.append(text(ex + CELL - 18, ey + CELL - 14, "E", { "font-size": 11, "text-anchor": "middle" }));

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
      svg.append(cardBox(...cardXY(y, i), card, "", seatColour(view.seat), payload));
    });
  }
  return svg;
}
