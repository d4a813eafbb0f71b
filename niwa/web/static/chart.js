// Each seat's score over the match (the payload's per-frame `score`, from the
// spectator's view on the server), as one SVG line per seat, and a marker at the step
// shown. Built once; showing a step only moves the marker, and update() redraws the
// lines after frames were appended to the payload (a live match).
import { el, seatColour, text } from "./svg.js";

const W = 640;
const H = 120;
const LEFT = 40;
const RIGHT = 10;
const TOP = 10;
const BOTTOM = 24;

function scoresOf(payload) {
  return payload.seats.map((_, s) => payload.frames.map((f) => (f.score ? f.score[s] : null)));
}

function known(series) {
  return series.flat().filter((v) => v !== null && v !== undefined);
}

// The chart, or null when the game keeps no running score.
export function scoreChart(payload, onPick) {
  if (!known(scoresOf(payload)).length) return null;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "nv-chart", role: "img", "aria-label": "score per seat per step" });
  const marker = el("line", { y1: TOP, y2: H - BOTTOM, stroke: "#222", "stroke-dasharray": "3 3", class: "nv-chart-marker" });
  let series = [];
  let last = 1;
  let x = () => LEFT;

  function draw() {
    series = scoresOf(payload);
    const values = known(series);
    const high = Math.max(1, ...values);
    const low = Math.min(0, ...values);
    last = Math.max(1, payload.frames.length - 1);
    x = (i) => LEFT + (i / last) * (W - LEFT - RIGHT);
    const y = (v) => TOP + (1 - (v - low) / (high - low)) * (H - TOP - BOTTOM);
    svg.replaceChildren(
      el("rect", { x: LEFT, y: TOP, width: W - LEFT - RIGHT, height: H - TOP - BOTTOM, fill: "#fff", stroke: "#ccc" }),
      text(LEFT - 4, TOP + 8, high, { "text-anchor": "end", "font-size": 11 }),
      text(LEFT - 4, H - BOTTOM, low, { "text-anchor": "end", "font-size": 11 }),
      text(LEFT, H - 6, "step 0", { "font-size": 11 }),
      text(W - RIGHT, H - 6, `step ${last}`, { "font-size": 11, "text-anchor": "end" }),
    );
    series.forEach((points, s) => {
      const pts = [];
      points.forEach((v, i) => {
        if (v !== null && v !== undefined) pts.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
      });
      svg.append(el("polyline", {
        points: pts.join(" "), fill: "none", stroke: seatColour(s), "stroke-width": 2,
        "data-seat": s, class: "nv-score-line",
      }));
    });
    svg.append(marker);
  }

  // A click or tap on the chart shows that step.
  svg.addEventListener("pointerdown", (event) => {
    const box = svg.getBoundingClientRect();
    const at = ((event.clientX - box.left) / box.width) * W;
    onPick(Math.round(((at - LEFT) / (W - LEFT - RIGHT)) * last));
  });

  const legend = document.createElement("ul");
  legend.className = "nv-legend";
  const now = [];
  payload.seats.forEach((_, s) => {
    const li = document.createElement("li");
    li.className = `nv-seat seat-${s % 6}`;
    const value = document.createElement("span");
    value.className = "nv-legend-score";
    value.dataset.seat = String(s);
    li.append(`seat ${s}: `, value);
    now.push(value);
    legend.append(li);
  });

  const box = document.createElement("figure");
  box.className = "nv-chart-box";
  const caption = document.createElement("figcaption");
  caption.textContent = "score per step";
  box.append(caption, svg, legend);
  draw();
  return {
    node: box,
    update: draw,
    mark(step) {
      const at = x(step).toFixed(1);
      marker.setAttribute("x1", at);
      marker.setAttribute("x2", at);
      now.forEach((span, s) => {
        const v = series[s][step];
        span.textContent = v === null || v === undefined ? "–" : String(v);
      });
    },
  };
}
