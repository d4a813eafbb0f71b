// The renderer for a game that ships none (its Game.renderer_asset() is None): the
// game's own text picture of the table (State.render, in the payload's frames as
// `text`) and the observation as a tree of its fields. Everything goes in as textContent.

function leaf(value) {
  const span = document.createElement("span");
  span.className = "nv-leaf";
  span.textContent = JSON.stringify(value);
  return span;
}

export function tree(value, label = "observation") {
  if (value === null || typeof value !== "object") {
    const row = document.createElement("div");
    row.append(`${label}: `, leaf(value));
    return row;
  }
  const box = document.createElement("details");
  box.open = true;
  const summary = document.createElement("summary");
  summary.textContent = Array.isArray(value) ? `${label} [${value.length}]` : label;
  box.append(summary);
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  for (const [key, child] of entries) box.append(tree(child, key));
  return box;
}

export function draw(view, payload, at = { step: 0, seat: null }) {
  const out = document.createElement("div");
  out.className = "nv-generic";
  const texts = payload.frames[at.step]?.text;
  if (texts) {
    const pre = document.createElement("pre");
    pre.textContent = texts[at.seat === null ? 0 : at.seat + 1] ?? "";
    out.append(pre);
  }
  out.append(tree(view));
  return out;
}
