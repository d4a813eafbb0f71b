// Bonsai: each seat's hex tree(s) over its pot, its supply, cards, goal tiles and score;
// the four board slots, the open goals and the deck (docs/games/bonsai.md).
import { canvas, el, field, partText, reuse, seatColour, seatLabel, text, words } from "../svg.js";

const TILE_COLOURS = { wood: "#8b5a2b", leaf: "#4caf50", flower: "#f48fb1", fruit: "#ff9800" };
// The pot's cells (u, v) from niwa/engine/rulesets/bonsai/data/setup.json; flipped: u mirrored.
const POT = [[-4, 0], [-3, -1], [-2, -2], [-2, 0], [-1, -1], [0, -2], [1, -1], [2, -2], [2, 0],
  [3, -1], [4, -2], [4, 0], [5, -1], [6, 0]];
const PANEL_W = 360;
// The goal tiles' colours (bonsai.md §4.1).
const GOAL_COLOURS = { brown: "#a1887f", green: "#81c784", orange: "#ffb74d", pink: "#f48fb1", blue: "#64b5f6" };
const GOAL_W = 150;

// A seat's cards by kind in words, counted: "Growth (leaf) ×2".
function cardCounts(payload, cards) {
  const counts = new Map();
  for (const c of cards) counts.set(c, (counts.get(c) || 0) + 1);
  return [...counts].map(([c, n]) => `${words(payload, c)}${n > 1 ? ` ×${n}` : ""}`);
}

// Text lines of at most `width` characters: `head`, then `items` joined by ", ".
function lines(head, items, width) {
  const out = [];
  let line = head;
  items.forEach((item, i) => {
    const sep = i === 0 ? " " : ", ";
    if (i > 0 && line.length + item.length + 2 > width) {
      out.push(`${line},`);
      line = item;
    } else line = `${line}${sep}${item}`;
  });
  out.push(line);
  return out;
}
const TREE_H = 210;

function hexPoints(cx, cy, s) {
  const pts = [];
  for (let k = 0; k < 6; k += 1) {
    const a = (Math.PI / 180) * (60 * k - 30);
    pts.push(`${(cx + s * Math.cos(a)).toFixed(1)},${(cy + s * Math.sin(a)).toFixed(1)}`);
  }
  return pts.join(" ");
}

// The empty cells next to a tree's tiles, off the pot: where a tile may grow, drawn
// faint on the tree a person at the table plays (data-part "cell:U,V").
function openCells(cells, pot) {
  const taken = new Set([...cells, ...pot].map(([u, v]) => `${u},${v}`));
  const open = new Map();
  for (const [u, v] of cells) {
    for (const [du, dv] of [[2, 0], [-2, 0], [1, 1], [-1, 1], [1, -1], [-1, -1]]) {
      const key = `${u + du},${v + dv}`;
      if (!taken.has(key)) open.set(key, [u + du, v + dv]);
    }
  }
  return [...open.values()];
}

function tree(x, y, cells, flipped, label, playable = false) {
  // Doubled-width hex coordinates: (u±2, v) and (u±1, v±1) are neighbours.
  const pot = POT.map(([u, v]) => [flipped ? -u : u, v]);
  const open = playable ? openCells(cells, pot) : [];
  const all = [...cells.map(([u, v]) => [u, v]), ...pot, ...open];
  const us = all.map(([u]) => u);
  const vs = all.map(([, v]) => v);
  const umin = Math.min(...us);
  const umax = Math.max(...us);
  const vmin = Math.min(...vs);
  const vmax = Math.max(...vs);
  const s = Math.min(22, (PANEL_W - 20) / ((umax - umin + 2) * Math.sqrt(3) / 2),
    (TREE_H - 20) / ((vmax - vmin) * 1.5 + 2));
  const w = Math.sqrt(3) * s;
  const cx = (u) => x + 10 + (u - umin + 1) * (w / 2);
  const cy = (v) => y + 10 + s + (vmax - v) * 1.5 * s;
  const g = el("g", { class: "tree", "aria-label": label });
  // The pot as a glazed bowl under its cells (its top row is where the trunk stands),
  // the cells themselves faint on it: the rules' geometry stays readable.
  const rowsOf = (v) => pot.filter(([, pv]) => pv === v).map(([u]) => cx(u));
  const top = rowsOf(0);
  const bottom = rowsOf(Math.min(...pot.map(([, v]) => v)));
  const yTop = cy(0) - s * 0.9;
  const yBottom = cy(Math.min(...pot.map(([, v]) => v))) + s;
  const left = Math.min(...top) - w / 2;
  const right = Math.max(...top) + w / 2;
  const bowl = el("g", { class: "pot" });
  bowl.append(el("path", {
    d: `M${left} ${yTop} L${right} ${yTop} L${Math.max(...bottom) + w / 2} ${yBottom} L${Math.min(...bottom) - w / 2} ${yBottom} Z`,
    fill: "#4f7ca8", stroke: "#2c4f73", "stroke-width": 2,
  }));
  bowl.append(el("rect", { x: left - 4, y: yTop - 4, width: right - left + 8, height: 6, rx: 3, fill: "#2c4f73" }));
  const potTitle = el("title");
  potTitle.textContent = "the pot";
  bowl.append(potTitle);
  g.append(bowl);
  for (const [u, v] of pot) {
    g.append(el("polygon", { points: hexPoints(cx(u), cy(v), s * 0.95), fill: "none", stroke: "#9fbcd8", "stroke-width": 0.8 }));
  }
  for (const [u, v] of open) {
    g.append(el("polygon", {
      points: hexPoints(cx(u), cy(v), s * 0.95), fill: "#fbf8f1", stroke: "#cfc6b0",
      "stroke-dasharray": "3 2", "data-part": `cell:${u},${v}`,
    }));
  }
  for (const [u, v, tile] of cells) {
    g.append(el("polygon", {
      points: hexPoints(cx(u), cy(v), s * 0.95), fill: TILE_COLOURS[tile] || "#999",
      stroke: "#222", "data-tile": tile, "data-part": playable ? `cell:${u},${v}` : undefined,
    }));
  }
  return g;
}

function seatFacts(view, payload, seat, i, x, top) {
  const out = el("g", { class: "seat-facts" });
  let ty = top;
  const supply = Object.entries(seat.supply).flatMap(([t, n], k) => [
    [k ? ", " : "", undefined], [`${t} ${n}`, i === view.seat ? `supply:${t}` : undefined],
  ]);
  out.append(partText(x + 8, ty, [[`supply (capacity ${view.capacity[i]}): `, undefined], ...supply], { "font-size": 11 }));
  ty += 16;
  const cards = lines(`cards (${seat.cards.length}):`, seat.cards.length ? cardCounts(payload, seat.cards) : ["none"], 58);
  const claimed = [...seat.claimed.map((g) => words(payload, g)), ...seat.renounced.map((g) => `renounced ${words(payload, g)}`)];
  const goals = lines("goals claimed:", claimed.length ? claimed : ["none"], 58);
  for (const line of [...cards, ...goals].slice(0, 9)) {
    out.append(text(x + 8, ty, line, { "font-size": 10 }));
    ty += 13;
  }
  return out;
}

export function draw(view, payload) {
  const perRow = Math.min(view.seats.length, 2);
  const rows = Math.ceil(view.seats.length / perRow);
  const panelH = TREE_H * Math.max(...view.seats.map((s) => s.trees.length)) + 190;
  const svg = canvas(Math.max(740, perRow * (PANEL_W + 16) + 12), 166 + rows * panelH, `Bonsai, ${view.phase}`);
  svg.append(text(12, 22, `Bonsai · ${view.phase}${view.end_triggered ? ` · last round (${view.turns_left} turns left)` : ""}`, { "font-size": 16, "font-weight": "bold" }));
  svg.append(text(460, 22, "deck", { "font-size": 13 }));
  svg.append(field(495, 22, "deck", -1, view.deck_size, { "font-size": 13 }));
  svg.append(text(540, 22, `discards ${view.discards.length}`, { "font-size": 13 }));
  view.board.forEach((card, i) => {
    const x = 12 + i * 180;
    svg.append(el("rect", { x, y: 36, width: 170, height: 34, rx: 4, fill: "#fff", stroke: "#888", "data-part": `slot:${i + 1}` }));
    // pointer-events none: a click on the words reaches the slot under them
    svg.append(text(x + 6, 50, `slot ${i + 1}`, { "font-size": 10, "pointer-events": "none" }));
    svg.append(text(x + 6, 64, card === null ? "(empty)" : words(payload, card), { "font-size": 11, "data-slot": i, "pointer-events": "none" }));
  });
  // The open goal tiles, in their colours, four to a row.
  view.goals_open.forEach((goal, i) => {
    const x = 12 + (i % 4) * (GOAL_W + 6);
    const y = 76 + Math.floor(i / 4) * 20;
    svg.append(el("rect", { x, y, width: GOAL_W, height: 17, rx: 3, fill: GOAL_COLOURS[goal.split("-")[0]] || "#ddd", stroke: "#777" }));
    svg.append(text(x + 5, y + 12, words(payload, goal), { "font-size": 10, "data-goal": goal }));
  });
  if (!view.goals_open.length) svg.append(text(12, 88, "no goal tiles open", { "font-size": 11 }));
  if (view.solo) {
    const solo = view.solo;
    svg.append(text(12, 132, `solo ${solo.scenario}: target ${JSON.stringify(solo.target)}, goals ${solo.goals_claimed}, ${solo.won ? "won" : "not won yet"}`, { "font-size": 11 }));
  }
  view.seats.forEach((seat, i) => {
    const x = 12 + (i % perRow) * (PANEL_W + 16);
    const y = 140 + Math.floor(i / perRow) * panelH;
    const turn = view.to_move.includes(i);
    svg.append(el("rect", { x, y, width: PANEL_W, height: panelH - 10, rx: 6, fill: "none", stroke: seatColour(i), "stroke-width": turn ? 3 : 1 }));
    svg.append(text(x + 8, y + 18, seatLabel(i, view), { "font-size": 14, fill: seatColour(i) }));
    svg.append(text(x + 120, y + 18, "score", { "font-size": 12 }));
    svg.append(field(x + 160, y + 18, "score", i, view.scores[i].total, { "font-size": 16, "font-weight": "bold" }));
    const sc = view.scores[i];
    svg.append(text(x + 200, y + 18, `leaf ${sc.leaf} flower ${sc.flower} fruit ${sc.fruit} parch ${sc.parchments} goals ${sc.goals}`, { "font-size": 8 }));
    seat.trees.forEach((cells, b) => {
      const label = `seat ${i} bonsai ${b + 1}`;
      const playable = i === view.seat && b === seat.active;
      // A tree is drawn from its cells and pot alone: redrawn only when they changed.
      const flipped = seat.pot_flipped[b];
      const ty = y + 24 + b * TREE_H;
      svg.append(reuse(`bonsai-tree ${i} ${b}`, [cells, x, ty, flipped, playable], () => tree(x, ty, cells, flipped, label, playable)));
      svg.append(field(x + PANEL_W - 10, y + 40 + b * TREE_H, "tiles", i, cells.length, { "font-size": 11, "text-anchor": "end" }));
      svg.append(text(x + PANEL_W - 28, y + 40 + b * TREE_H, "tiles ", { "font-size": 11, "text-anchor": "end" }));
    });
    // The seat's supply, cards and goals, drawn from its object and these alone: drawn
    // again only when one of them changed (svg.js reuse).
    const ty = y + 24 + seat.trees.length * TREE_H + 14;
    const inputs = [seat, view.capacity[i], x, ty, view.seat, payload];
    svg.append(reuse(`bonsai-facts ${i}`, inputs, () => seatFacts(view, payload, seat, i, x, ty)));
  });
  return svg;
}
