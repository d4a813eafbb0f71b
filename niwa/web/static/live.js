// A running match watched live: the server's events (niwa/web/live.py) on the
// element's data-live URL build the viewer's payload as they come. "start" carries the
// match's public header and frame 0, each "frame" the next frame and the moves that led
// to it; "end" means the match is over, and the page is loaded again to show the full
// replay. Frames that arrive together are drawn once, on the next animation frame.
import { mountViewer } from "./viewer.js";

const root = document.querySelector("#niwa-viewer[data-live]");
// Loading the page again after the end: soon, but not in a tight loop while the
// ladder records the match.
const RELOAD_MS = 1500;

function say(text, cls = "nv-live") {
  let line = document.getElementById("niwa-live-status");
  if (!line) {
    line = document.createElement("p");
    line.id = "niwa-live-status";
    root.before(line);
  }
  line.className = cls;
  line.textContent = text;
}

if (root && "EventSource" in window) {
  const stream = new EventSource(root.dataset.live);
  let payload = null;
  let viewer = null;
  let pending = [];
  let starting = null;

  const flush = () => {
    if (!viewer) return; // mounting: it flushes when done
    if (pending.length) viewer.append(pending);
    pending = [];
  };

  stream.addEventListener("start", (e) => {
    if (payload) return; // a reconnection: the viewer has it already
    payload = JSON.parse(e.data);
    starting = (async () => {
      const renderer = payload.renderer ? await import(payload.renderer) : undefined;
      viewer = mountViewer(root, payload, renderer);
      window.niwaViewer = viewer;
      const behind = payload.delay ? `, ${payload.delay} steps behind` : "";
      say(`live: the spectator's view${behind}; the full replay follows when the match ends`);
      flush();
    })();
  });

  stream.addEventListener("frame", (e) => {
    if (!payload) return;
    const data = JSON.parse(e.data);
    const frames = payload.frames;
    const before = pending.length ? pending[pending.length - 1] : frames[frames.length - 1];
    before.moves = data.moves;
    if (pending.length === 0) requestAnimationFrame(flush);
    pending.push(data.frame);
  });

  stream.addEventListener("end", async () => {
    stream.close();
    await starting;
    flush();
    say("the match has ended: loading its replay…");
    setTimeout(() => location.reload(), RELOAD_MS);
  });

  stream.addEventListener("unavailable", (e) => {
    stream.close();
    say(JSON.parse(e.data).reason, "nv-live nv-unavailable");
  });

  stream.addEventListener("error", () => {
    if (stream.readyState !== EventSource.CLOSED) say("live view paused (reconnecting)…");
    // refused (the server's limit of live streams): the browser does not retry
    else if (!payload) say("live view not available now (too many watchers): reload later, or wait for the replay", "nv-live nv-unavailable");
  });
}
