// What a bot was thinking (ActReply.thinking, as niwa/web/replay_view.py ships it):
// a bar per legal action for its share, and a chart of each reporting seat's value of
// its own result over the match. Drawn only where the payload carries thinking, which
// is where it may carry debug text: a ladder's public pages never do.
import { canvas, el, seatColour, text } from "./svg.js";

const BAR_WIDTH = 60;
const BAR_HEIGHT = 8;
const CHART_WIDTH = 640;
const CHART_HEIGHT = 140;
const PAD = { left: 34, right: 8, top: 18, bottom: 20 };

// The bar for legal action `index` of move `m`, or null when the move has no shares.
export function shareBar(m, index) {
  const shares = m.thinking?.shares;
  if (!shares || shares.length <= index) return null;
  const share = Math.max(0, Math.min(1, Number(shares[index]) || 0));
  const bar = el("svg", {
    class: "nv-share", width: BAR_WIDTH, height: BAR_HEIGHT, viewBox: `0 0 ${BAR_WIDTH} ${BAR_HEIGHT}`,
    "data-share": share, role: "img", "aria-label": `share ${(share * 100).toFixed(1)}%`,
  });
  bar.append(el("rect", { x: 0, y: 0, width: BAR_WIDTH, height: BAR_HEIGHT, fill: "#eee" }));
  bar.append(el("rect", { class: "nv-share-fill", x: 0, y: 0, width: (share * BAR_WIDTH).toFixed(2), height: BAR_HEIGHT, fill: seatColour(m.seat) }));
  return bar;
}

// A line under a move: the values it reported and the line of play it expected.
export function summary(m) {
  const t = m.thinking;
  if (!t || (!t.values?.length && !t.pv?.length)) return null;
  const parts = [];
  if (t.values?.length) parts.push(`values ${t.values.map((v) => Number(v).toFixed(2)).join(" / ")}`);
  if (t.pv?.length) parts.push(`expects ${t.pv.join(" → ")}`);
  const p = document.createElement("p");
  p.className = "nv-thinking";
  p.textContent = `thinking: ${parts.join(" · ")}`;
  return p;
}

// Each seat that reported values: [step, its value of its own result] in step order.
export function valueSeries(payload) {
  const series = new Map();
  payload.frames.forEach((frame, step) => {
    for (const m of frame.moves) {
      const values = m.thinking?.values;
      if (m.seat < 0 || !values || values.length <= m.seat) continue;
      if (!series.has(m.seat)) series.set(m.seat, []);
      series.get(m.seat).push([step, Number(values[m.seat])]);
    }
  });
  return series;
}

// The value chart, or null when no seat reported values: { node, mark(step) }.
export function valueChart(payload) {
  const series = valueSeries(payload);
  if (series.size === 0) return null;
  const last = Math.max(1, payload.frames.length - 1);
  const w = CHART_WIDTH - PAD.left - PAD.right;
  const h = CHART_HEIGHT - PAD.top - PAD.bottom;
  const x = (step) => PAD.left + (step / last) * w;
  const y = (value) => PAD.top + (1 - Math.max(0, Math.min(1, value))) * h;
  const svg = canvas(CHART_WIDTH, CHART_HEIGHT, "each seat's value of its own result, by step");
  svg.classList.add("nv-thinking-chart");
  for (const v of [0, 0.5, 1]) {
    svg.append(el("line", { x1: PAD.left, x2: PAD.left + w, y1: y(v), y2: y(v), stroke: "#ccc" }));
    svg.append(text(PAD.left - 4, y(v) + 4, v.toFixed(1), { "text-anchor": "end", "font-size": 11 }));
  }
  svg.append(text(PAD.left, 12, "value (1 = first place) by step", { "font-size": 11 }));
  svg.append(text(PAD.left + w, CHART_HEIGHT - 4, `step ${last}`, { "text-anchor": "end", "font-size": 11 }));
  for (const [seat, points] of series) {
    const drawn = points.map(([s, v]) => `${x(s).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    svg.append(el("polyline", {
      class: "nv-value-line", "data-seat": seat, "data-points": points.length, points: drawn,
      fill: "none", stroke: seatColour(seat), "stroke-width": 2,
    }));
    const [step, value] = points[points.length - 1];
    svg.append(text(Math.min(x(step) + 3, PAD.left + w - 40), y(value) - 4, `seat ${seat}`, { class: "nv-value-label", "font-size": 11, fill: seatColour(seat) }));
  }
  const marker = el("line", { class: "nv-value-step", y1: PAD.top, y2: PAD.top + h, stroke: "#555", "stroke-dasharray": "3 3" });
  svg.append(marker);
  const mark = (step) => {
    marker.setAttribute("x1", x(step).toFixed(1));
    marker.setAttribute("x2", x(step).toFixed(1));
  };
  mark(0);
  return { node: svg, mark };
}
