// Blossom: the garden, each seat's hand, yard (face up by kind, face down as a stack),
// the deck and the scores, from the observation (docs/games/blossom.md).
import { canvas, el, field, reuse, seatColour, seatLabel, text } from "../svg.js";

const KIND_COLOURS = {
  cherry: "#f4a7b9", chrysanth: "#f6c744", camellia: "#c0392b",
  rose: "#e84393", lily: "#9ccc65", anemone: "#6c5ce7",
};
const CARD_W = 46;
const CARD_H = 60;

// The six flowers of the deck (blossom.md §2), each drawn as it looks: the names on
// the cards are the rules' ids, the full name is the tooltip.
const FULL_NAMES = {
  cherry: "cherry blossom", chrysanth: "chrysanthemum", camellia: "camellia", rose: "rose",
  lily: "lily of the valley", anemone: "anemone",
};

function petals(n, cx, cy, dist, make) {
  const out = [];
  for (let k = 0; k < n; k += 1) {
    const a = (2 * Math.PI * k) / n - Math.PI / 2;
    out.push(make(cx + dist * Math.cos(a), cy + dist * Math.sin(a), (a * 180) / Math.PI + 90));
  }
  return out;
}

const FLOWERS = {
  cherry: (cx, cy) => [...petals(5, cx, cy, 5.5, (x, y) => el("circle", { cx: x, cy: y, r: 4.5, fill: "#f8bbd0", stroke: "#ec407a", "stroke-width": 0.6 })),
    el("circle", { cx, cy, r: 2.5, fill: "#fdd835" })],
  chrysanth: (cx, cy) => [...petals(14, cx, cy, 6, (x, y, deg) => el("ellipse", { cx: x, cy: y, rx: 1.6, ry: 5, fill: "#f6c744", stroke: "#c49000", "stroke-width": 0.4, transform: `rotate(${deg.toFixed(0)} ${x.toFixed(1)} ${y.toFixed(1)})` })),
    el("circle", { cx, cy, r: 3, fill: "#e09b00" })],
  camellia: (cx, cy) => [...petals(5, cx, cy, 5, (x, y) => el("circle", { cx: x, cy: y, r: 5.5, fill: "#c0392b", stroke: "#7b1f16", "stroke-width": 0.6 })),
    el("circle", { cx, cy, r: 3, fill: "#fdd835" })],
  rose: (cx, cy) => [10, 7, 4.5, 2].map((r, k) => el("circle", { cx, cy, r, fill: k % 2 ? "#f06292" : "#c2185b", stroke: "#880e4f", "stroke-width": 0.5 })),
  lily: (cx, cy) => [el("path", { d: `M${cx - 9} ${cy - 9} Q${cx} ${cy - 14} ${cx + 9} ${cy - 6}`, stroke: "#388e3c", "stroke-width": 1.2, fill: "none" }),
    ...[-6, 0, 6].map((dx, k) => el("path", { d: `M${cx + dx - 3.5} ${cy - 5 + k * 2} q3.5 -5 7 0 l0 5 l-7 0 Z`, fill: "#fff", stroke: "#689f38", "stroke-width": 0.7 }))],
  anemone: (cx, cy) => [...petals(6, cx, cy, 5.5, (x, y) => el("circle", { cx: x, cy: y, r: 4.8, fill: "#7e57c2", stroke: "#4527a0", "stroke-width": 0.5 })),
    el("circle", { cx, cy, r: 3.5, fill: "#212121" })],
};

// Each flower once, centred on (0, 0), for the cards to <use>.
function flowerDefs() {
  const defs = el("defs");
  for (const [kind, shapes] of Object.entries(FLOWERS)) {
    const g = el("g", { id: `nv-flower-${kind}` });
    for (const shape of shapes(0, 0)) g.append(shape);
    defs.append(g);
  }
  return defs;
}

// part: the board part a person at the table may click (data-part).
function card(x, y, kind, count, attrs = {}, part = undefined) {
  const g = el("g", { class: "card", "data-kind": kind, "data-part": part });
  g.append(el("rect", {
    x, y, width: CARD_W, height: CARD_H, rx: 5, fill: "#fffdf7",
    stroke: KIND_COLOURS[kind] || "#444", "stroke-width": 2.5, opacity: count ? 1 : 0.3,
  }));
  g.append(text(x + CARD_W / 2, y + 11, kind, { "text-anchor": "middle", "font-size": 9 }));
  // One <use> of the flower drawn once in the board's <defs> (flowerDefs): a card is
  // a handful of nodes, not a few dozen, so stepping stays cheap.
  if (FLOWERS[kind]) g.append(el("use", { href: `#nv-flower-${kind}`, x: x + CARD_W / 2, y: y + 28, opacity: count ? 1 : 0.3 }));
  g.append(text(x + CARD_W / 2, y + 54, count, {
    "text-anchor": "middle", "font-size": 14, "font-weight": "bold", ...attrs,
  }));
  const title = el("title");
  title.textContent = FULL_NAMES[kind] || kind;
  g.append(title);
  return g;
}

function faceDown(x, y, count, attrs) {
  const g = el("g", { class: "card down" });
  g.append(el("rect", {
    x, y, width: CARD_W, height: CARD_H, rx: 5, fill: "#5b4636", stroke: "#222",
  }));
  g.append(text(x + CARD_W / 2, y + 40, count, {
    "text-anchor": "middle", "font-size": 20, fill: "#fff", ...attrs,
  }));
  return g;
}

function row(x, y, counts, attrs, part = undefined) {
  const g = el("g");
  Object.entries(counts).forEach(([kind, n], i) => {
    const where = part ? `${part}:${kind}` : undefined;
    g.append(card(x + i * (CARD_W + 4), y, kind, n, attrs ? attrs(kind) : {}, where));
  });
  return g;
}

export function draw(view) {
  const seats = view.seats;
  const height = 130 + seats.length * 92 + (view.hand ? 90 : 0);
  const svg = canvas(760, height, `Blossom, ${view.phase}`);
  svg.append(reuse("blossom-flowers", [], flowerDefs)); // the same every step
  const status = view.phase === "play"
    ? `turn ${view.turn}: seat ${view.current} to act (${view.actions_done + 1} of 2)`
    : view.phase;
  svg.append(text(12, 22, `Blossom · ${status}${view.end_triggered ? " · last round" : ""}`,
    { "font-size": 16, "font-weight": "bold" }));
  svg.append(el("rect", {
    x: 552, y: 4, width: 80, height: 26, rx: 4, fill: "#efe6d2", "data-part": "deck",
  }));
  svg.append(text(560, 22, "deck ", { "font-size": 14 }));
  svg.append(field(600, 22, "deck", -1, view.deck, { "font-size": 14 }));
  svg.append(text(640, 22, `removed ${view.removed}`, { "font-size": 14 }));
  svg.append(text(12, 50, "garden", { "font-size": 13 }));
  svg.append(reuse("blossom-garden", [view.garden], () => row(70, 34, view.garden,
    (kind) => ({ "data-field": "garden", "data-kind": kind }), "garden")));
  let y = 120;
  // A seat's box is drawn from its own object and these few facts: redrawn only when
  // one of them changed (svg.js reuse).
  const seatBox = (s, i, y, turn) => {
    const g = el("g", { class: "seat" });
    g.append(el("rect", {
      x: 6, y, width: 748, height: 86, rx: 6, fill: "none",
      stroke: seatColour(i), "stroke-width": turn ? 3 : 1,
    }));
    g.append(text(14, y + 20, seatLabel(i, view), { "font-size": 14, fill: seatColour(i) }));
    g.append(text(14, y + 42, "score", { "font-size": 12 }));
    g.append(field(60, y + 42, "score", i, view.scores[i], { "font-size": 16, "font-weight": "bold" }));
    g.append(text(14, y + 64, "hand", { "font-size": 12 }));
    g.append(field(60, y + 64, "hand", i, s.hand, { "font-size": 14 }));
    g.append(text(100, y + 14, "yard, face up", { "font-size": 10 }));
    g.append(row(100, y + 20, s.yard_up, undefined, i === view.seat ? "yard" : undefined));
    g.append(text(420, y + 14, "face down", { "font-size": 10 }));
    g.append(faceDown(420, y + 20, s.yard_down, { "data-field": "yard_down", "data-seat": i }));
    const known = Object.entries(s.known).filter(([, n]) => n > 0);
    if (known.length) {
      // Three kinds a line: six would run past the seat's box.
      const items = known.map(([kind, n]) => `${kind}×${n}`);
      for (let k = 0; k < items.length; k += 3) {
        const line = items.slice(k, k + 3).join(", ");
        g.append(text(480, y + 40 + (k / 3) * 14, k ? line : `known taken: ${line}`, { "font-size": 11 }));
      }
    }
    if (view.dealer === i) g.append(text(480, y + 20, "dealer", { "font-size": 11 }));
    return g;
  };
  seats.forEach((s, i) => {
    const turn = view.to_move.includes(i);
    const inputs = [s, y, turn, view.scores[i], view.seat, view.dealer === i];
    svg.append(reuse(`blossom-seat ${i}`, inputs, () => seatBox(s, i, y, turn)));
    y += 92;
  });
  if (view.hand) {
    svg.append(text(12, y + 14, `your hand (seat ${view.seat})`, { "font-size": 13 }));
    const handY = y + 20;
    svg.append(reuse("blossom-hand", [view.hand, handY], () => row(12, handY, view.hand,
      (kind) => ({ "data-field": "own-hand", "data-kind": kind }), "hand")));
    svg.append(text(380, y + 14, "your face-down yard", { "font-size": 11 }));
    svg.append(reuse("blossom-down", [view.yard_down, handY], () => row(380, handY, view.yard_down, undefined, "down")));
  }
  return svg;
}
