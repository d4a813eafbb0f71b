// For a served page under a strict CSP (script-src 'self'): mounts the viewer on
// #niwa-viewer with the payload in <script type="application/json" id="niwa-payload">
// (niwa.web.offline.embed_json writes it safely), with the game's renderer module loaded
// from the payload's `renderer` URL (served by niwa.web.app from the game's package;
// null: the viewer's generic renderer). The offline page does the same inline.
import { mountViewer } from "./viewer.js";

const root = document.getElementById("niwa-viewer");
const data = document.getElementById("niwa-payload");
if (root && data) {
  const payload = JSON.parse(data.textContent);
  const renderer = payload.renderer ? await import(payload.renderer) : undefined;
  window.niwaViewer = mountViewer(root, payload, renderer);
}
