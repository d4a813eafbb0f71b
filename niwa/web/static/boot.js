// For a served page under a strict CSP (script-src 'self'): mounts the viewer on
// #niwa-viewer with the payload in <script type="application/json" id="niwa-payload">
// (niwa.web.offline.embed_json writes it safely). The offline page does the same inline.
import { mountViewer } from "./viewer.js";

const root = document.getElementById("niwa-viewer");
const data = document.getElementById("niwa-payload");
if (root && data) window.niwaViewer = mountViewer(root, JSON.parse(data.textContent));
