// The viewer's two summaries: one line per seat that failed (its failures by class,
// the first one's detail and a link to its step), and the end-of-game table (the
// payload's `breakdown`: rows of a value per seat, the tie-break rule and how it decided).
// Everything from the replay goes in as textContent.

function node(tag, className, text) {
  const n = document.createElement(tag);
  if (className) n.className = className;
  if (text !== undefined) n.textContent = String(text);
  return n;
}

// Per seat: [{status, count, first: {step, detail}}] in the order the classes came.
export function failuresBySeat(payload) {
  const seats = payload.seats.map(() => new Map());
  payload.frames.forEach((frame, step) => {
    for (const m of frame.moves) {
      if (m.seat < 0 || m.status === "OK" || !seats[m.seat]) continue;
      const classes = seats[m.seat];
      const entry = classes.get(m.status);
      if (entry) entry.count += 1;
      else classes.set(m.status, { status: m.status, count: 1, first: { step, detail: m.detail || "" } });
    }
  });
  return seats.map((classes) => [...classes.values()]);
}

// One <li> per seat with a failure or an exit, or null when none has either.
export function failureSummary(payload, seatName) {
  const bySeat = failuresBySeat(payload);
  const list = node("ul", "nv-failures");
  bySeat.forEach((classes, seat) => {
    const out = payload.result?.seats?.[seat];
    const left = out && out.status === "out";
    if (!classes.length && !left) return;
    const li = node("li", `nv-failure-seat seat-${seat % 6}`);
    li.dataset.seat = String(seat);
    li.append(node("span", "nv-seat-name", `seat ${seat} (${seatName(seat)}): `));
    const parts = classes.map((c) => {
      const a = node("a", "nv-failure", `${c.status} ×${c.count}`);
      a.href = `#step=${c.first.step}`;
      a.title = `first at step ${c.first.step}`;
      return [a, c];
    });
    parts.forEach(([a, c], i) => {
      if (i) li.append(", ");
      li.append(a, ` first at step ${c.first.step}`);
      if (c.first.detail) li.append(node("span", "nv-detail", ` (${c.first.detail})`));
    });
    if (left) {
      if (parts.length) li.append("; ");
      const where = out.at === null ? "at start-up" : `at step ${out.at}`;
      const a = node("a", "nv-out", `out: ${out.reason} ${where}`);
      a.href = out.at === null ? "#step=0" : `#step=${out.at}`;
      li.append(a);
    }
    list.append(li);
  });
  return list.childElementCount ? list : null;
}

// The end-of-game table, or null without a breakdown.
export function breakdownTable(payload) {
  const b = payload.breakdown;
  if (!b) return null;
  const box = node("section", "nv-breakdown");
  box.append(node("h3", "", "end of game"));
  const table = node("table", "nv-breakdown-table");
  const head = node("tr");
  head.append(node("th", "", ""));
  payload.seats.forEach((_, s) => head.append(node("th", `seat-${s % 6}`, `seat ${s}`)));
  const thead = node("thead");
  thead.append(head);
  table.append(thead);
  const body = node("tbody");
  for (const row of b.rows) {
    const tr = node("tr");
    tr.append(node("th", "", row.label));
    for (const v of row.values) tr.append(node("td", "", v));
    body.append(tr);
  }
  table.append(body);
  box.append(table);
  box.append(node("p", "nv-tie-rule", `tie-break: ${b.tie_rule}`));
  for (const line of b.tie_break) box.append(node("p", "nv-tie-break", line));
  return box;
}
