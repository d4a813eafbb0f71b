// The match page: mount the replay viewer on the payload the server embedded as JSON.
import { mountViewer } from "./viewer.js";

const source = document.getElementById("replay-payload");
const root = document.getElementById("viewer");
if (source && root) {
  mountViewer(root, JSON.parse(source.textContent));
}
