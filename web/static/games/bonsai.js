// bonsai: placeholder until its board is drawn.
import { canvas, text } from "../svg.js";

export function draw(view) {
  const svg = canvas(600, 80, "bonsai");
  svg.append(text(12, 30, `bonsai · ${view.phase}`, { "font-size": 16 }));
  return svg;
}
