// miyabi: placeholder until its board is drawn.
import { canvas, text } from "../svg.js";

export function draw(view) {
  const svg = canvas(600, 80, "miyabi");
  svg.append(text(12, 30, `miyabi · ${view.phase}`, { "font-size": 16 }));
  return svg;
}
