// The match list's live updates: matches that finish are added on top as they arrive
// (server-sent events; the server looks at most once a second). Every bot-written text
// goes in as text, never as HTML.
const live = document.getElementById("live");
const rows = document.getElementById("match-rows");
const MAX_ROWS = 200;

function cell(row, content) {
  const td = document.createElement("td");
  if (content instanceof Node) td.append(content);
  else td.textContent = content;
  row.append(td);
  return td;
}

function link(href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

function addMatch(match) {
  const row = document.createElement("tr");
  row.className = "fresh";
  cell(row, link(`/matches/${match.id}`, `#${match.id}`));
  cell(row, match.game);
  // a person's challenge of a bot (unrated): as the page's own rows say it
  cell(row, match.kind === "challenge" ? "unrated, human" : match.kind);
  cell(row, match.state);
  cell(row, String(match.decisions || "")).className = "num";
  const seats = cell(row, "");
  for (const r of match.results) {
    const span = document.createElement("span");
    span.className = r.status === "ok" ? "seat" : "seat out";
    span.append(`${r.place}. `, link(`/bots/${r.bot_id}`, r.bot));
    if (r.failure) {
      const em = document.createElement("em");
      em.textContent = r.failure;
      span.append(" ", em);
    }
    seats.append(span, " ");
  }
  // A match of a duplicate round shown as waiting comes again, whole, once its round ends.
  rows.querySelector(`a[href="/matches/${Number(match.id)}"]`)?.closest("tr")?.remove();
  rows.prepend(row);
  while (rows.rows.length > MAX_ROWS) rows.lastElementChild.remove();
}

if (live && rows && live.dataset.live === "yes" && "EventSource" in window) {
  const params = new URLSearchParams({ after: live.dataset.after });
  if (live.dataset.game) params.set("game", live.dataset.game);
  const stream = new EventSource(`/matches/events?${params}`);
  live.hidden = false;
  live.textContent = "live: new matches appear on top";
  stream.addEventListener("match", (e) => addMatch(JSON.parse(e.data)));
  stream.addEventListener("error", () => {
    live.textContent = "live updates paused (reconnecting); the refresh link reloads";
  });
  stream.addEventListener("open", () => {
    live.textContent = "live: new matches appear on top";
  });
}
