// Miyabi: each seat's 6 x 6 garden (what lies on top of each cell and the height of its
// stack), the lantern fields over the columns, scores and bonuses; the middle display
// and the layer-5 bonus tiles left (docs/games/miyabi.md).
import { canvas, el, field, partText, reuse, seatColour, seatLabel, text } from "../svg.js";

const OBJECT_COLOURS = {
  maple: "#c0392b", pagoda: "#8e44ad", fish: "#2980b9", azalea: "#e91e63",
  boxwood: "#27ae60", stone: "#7f8c8d",
};
const CELL = 40;
const PANEL_W = CELL * 6 + 110;

// Each object type as a small white picture of the thing on its tile (miyabi.md §3),
// in the cell's top left, the stack height beside it; the row's label names it.
const ICONS = {
  maple: (x, y) => [el("polygon", { points: [0, -8, 2, -3, 7, -4, 4, 0, 7, 5, 1, 3, 0, 8, -1, 3, -7, 5, -4, 0, -7, -4, -2, -3].map((v, i) => (i % 2 ? y + v : x + v)).join(" ") })],
  pagoda: (x, y) => [0, 1, 2].map((k) => el("path", { d: `M${x - 8 + k * 2} ${y + 7 - k * 6} l${16 - k * 4} 0 l-3 -4 l${-10 + k * 4} 0 Z` })),
  fish: (x, y) => [el("ellipse", { cx: x - 1, cy: y, rx: 6, ry: 3.5 }), el("path", { d: `M${x + 4} ${y} l5 -4 l0 8 Z` })],
  azalea: (x, y) => [0, 1, 2, 3, 4].map((k) => el("circle", { cx: x + 4 * Math.cos((k * 2 * Math.PI) / 5), cy: y + 4 * Math.sin((k * 2 * Math.PI) / 5), r: 2.6 })),
  boxwood: (x, y) => [el("circle", { cx: x - 4, cy: y + 2, r: 4 }), el("circle", { cx: x + 4, cy: y + 2, r: 4 }), el("circle", { cx: x, cy: y - 3, r: 4.5 })],
  stone: (x, y) => [el("ellipse", { cx: x, cy: y + 1, rx: 7, ry: 4.5 })],
};

// Each object's picture once, centred on (0, 0), in the board's <defs>; a cell <use>s it
// (one node a cell, not a few: stepping through four gardens stays cheap).
function objectDefs() {
  const defs = el("defs");
  for (const [kind, shapes] of Object.entries(ICONS)) {
    const g = el("g", { id: `nv-object-${kind}`, fill: "#fff", stroke: "none" });
    for (const shape of shapes(0, 0)) g.append(shape);
    defs.append(g);
  }
  return defs;
}

function objectIcon(kind, x, y) {
  // pointer-events none: a click on the picture reaches the cell under it
  return ICONS[kind] ? el("use", { href: `#nv-object-${kind}`, x, y, "data-object": kind, "pointer-events": "none" }) : null;
}

// playable: the garden of the seat a person plays; its cells carry data-part
// "cell:ROW,COL" (1-based).
function garden(x, y, g, playable = false) {
  const out = el("g", { class: "garden" });
  g.lanterns.forEach((lit, c) => {
    out.append(el("circle", { cx: x + c * CELL + CELL / 2, cy: y + 8, r: 6, fill: lit ? "#ffd54f" : "#ddd", stroke: "#888" }));
  });
  const rows = g.top.length;
  for (let r = 0; r < rows; r += 1) {
    for (let c = 0; c < g.top[r].length; c += 1) {
      const top = g.top[r][c];
      const h = g.height[r][c];
      const cx = x + c * CELL;
      const cy = y + 20 + r * CELL;
      let fill = "#efe9dc";
      if (top === "green") fill = h > 1 ? "#7cb342" : "#aed581";
      else if (top) fill = OBJECT_COLOURS[top] || "#999";
      out.append(el("rect", { x: cx, y: cy, width: CELL - 2, height: CELL - 2, rx: 3, fill, stroke: "#555", "data-top": top ?? "", "data-height": h, "data-part": playable ? `cell:${r + 1},${c + 1}` : undefined }));
      const icon = top && top !== "green" ? objectIcon(top, cx + 12, cy + 12) : null;
      if (icon) out.append(icon);
      if (h > 0) out.append(text(cx + CELL - 6, cy + CELL - 7, h, { "font-size": 12, "text-anchor": "end", fill: top && top !== "green" ? "#fff" : "#222", "font-weight": "bold", "pointer-events": "none" }));
    }
    const visible = Object.values(g.visible_objects)[r];
    out.append(text(x + 6 * CELL + 6, y + 20 + r * CELL + 24, `${Object.keys(g.visible_objects)[r]} ${visible}`, { "font-size": 11 }));
  }
  return out;
}

// The middle display, a line of text pieces per shape, each tile kind one a person
// may click ("middle:SHAPE:OBJECT").
const MIDDLE_LINE = 14;
const SHAPES = 4;

function counts(display) {
  const lines = [];
  for (const [shape, objects] of Object.entries(display)) {
    const items = Object.entries(objects).filter(([, n]) => n > 0);
    if (!items.length) continue;
    const pieces = [[`${shape}: `, undefined]];
    items.forEach(([o, n], k) => {
      if (k) pieces.push([" ", undefined]);
      pieces.push([`${o}×${n}`, `middle:${shape}:${o}`]);
    });
    lines.push(pieces);
  }
  return lines.length ? lines : [[["empty", undefined]]];
}

function seatPanel(view, g, i, x, y, panelH, turn, passed) {
  const out = el("g", { class: "seat" });
  out.append(el("rect", { x: x - 6, y, width: PANEL_W + 6, height: panelH - 10, rx: 6, fill: "none", stroke: seatColour(i), "stroke-width": turn ? 3 : 1 }));
  out.append(text(x, y + 18, seatLabel(i, view), { "font-size": 14, fill: seatColour(i) }));
  out.append(text(x + 110, y + 18, "score", { "font-size": 12 }));
  out.append(field(x + 150, y + 18, "score", i, g.score, { "font-size": 16, "font-weight": "bold" }));
  if (passed) out.append(text(x + 200, y + 18, "passed", { "font-size": 12 }));
  out.append(garden(x, y + 24, g, i === view.seat));
  // One short fact a line, so no line runs into the next garden; the end scoring's
  // parts are in the viewer's end-of-game table.
  const end = Object.values(g.end_scoring || {}).reduce((a, b) => a + b, 0);
  const facts = [
    `tiles placed ${g.tiles.length}${end ? ` · end scoring +${end}` : ""}`,
    g.bonuses.length ? `layer-5 bonus: ${g.bonuses.join(", ")}` : "",
  ].filter(Boolean);
  facts.forEach((line, k) => out.append(text(x, y + 24 + 20 + 6 * CELL + 16 + 14 * k, line, { "font-size": 10 })));
  return out;
}

export function draw(view) {
  const perRow = Math.min(view.gardens.length, 2);
  const rows = Math.ceil(view.gardens.length / perRow);
  const panelH = 20 + 6 * CELL + 80;
  const top = (SHAPES - 1) * MIDDLE_LINE; // the middle's lines push the rest down
  const svg = canvas(Math.max(720, perRow * (PANEL_W + 20) + 12), 110 + top + rows * panelH, `Miyabi, round ${view.round}`);
  svg.append(reuse("miyabi-objects", [], objectDefs)); // the same every step
  svg.append(text(12, 22, `Miyabi · round ${view.round} of ${view.rounds} · ${view.phase}`, { "font-size": 16, "font-weight": "bold" }));
  svg.append(text(12, 44, "middle:", { "font-size": 12 }));
  svg.append(reuse("miyabi-middle", [view.display], () => {
    const middle = el("g", { class: "middle" });
    counts(view.display).forEach((pieces, k) => {
      middle.append(partText(62, 44 + k * MIDDLE_LINE, pieces, { "font-size": 12, "data-field": "middle" }));
    });
    return middle;
  }));
  const taken = view.chosen ? `taken: ${view.chosen.shape} ${view.chosen.object}` : "";
  svg.append(text(12, 62 + top, taken, { "font-size": 12 }));
  const bonus = Object.entries(view.bonus_tiles).map(([o, p]) => `${o} ${p}`).join(", ");
  svg.append(text(12, 80 + top, `layer-5 bonus tiles left: ${bonus || "none"}`, { "font-size": 12 }));
  view.gardens.forEach((g, i) => {
    const x = 12 + (i % perRow) * (PANEL_W + 20);
    const y = 96 + top + Math.floor(i / perRow) * panelH;
    const turn = view.to_move.includes(i);
    const passed = g.passed && view.phase !== "over";
    // A seat's panel is drawn from its garden's object and these few facts alone:
    // drawn again only when one of them changed (svg.js reuse).
    const inputs = [g, x, y, panelH, turn, passed, view.seat];
    svg.append(reuse(`miyabi-seat ${i}`, inputs, () => seatPanel(view, g, i, x, y, panelH, turn, passed)));
  });
  return svg;
}
