// The upload's validation, followed live: polls its status (once a second, owner-only,
// rate-limited by the server) until the verdict, and fills the page in place.
const box = document.getElementById("upload-progress");
const verdict = document.getElementById("upload-verdict");
const match = document.getElementById("upload-match");
const reason = document.getElementById("upload-reason");
const stderr = document.getElementById("upload-stderr");
const POLL_MS = 1000;

function word(s) {
  if (s.status === "pending") return "validating";
  if (s.status === "rejected") return "rejected";
  return `accepted (${s.status})`;
}

function show(s) {
  verdict.textContent = word(s);
  verdict.className = `status-${s.status}`;
  match.replaceChildren();
  if (s.match_id) {
    const link = document.createElement("a");
    link.href = `/matches/${s.match_id}`;
    link.textContent = `match #${s.match_id}`;
    match.append("— ", link, `, ${s.match_state}`);
  }
  reason.textContent = s.reason;
  const lines = s.stderr.length ? s.stderr.join("\n") + "\n"
    : s.done ? "(nothing on stderr)\n" : "(once the match has finished)\n";
  stderr.textContent = lines;
  box.dataset.done = s.done ? "yes" : "no";
}

async function poll() {
  try {
    const answer = await fetch(box.dataset.status, { headers: { accept: "application/json" } });
    if (answer.ok) {
      const s = await answer.json();
      show(s);
      if (s.done) return;
    }
  } catch (e) {
    // the ladder restarting: try again at the next tick
  }
  setTimeout(poll, POLL_MS);
}

if (box && box.dataset.done !== "yes") setTimeout(poll, POLL_MS);
