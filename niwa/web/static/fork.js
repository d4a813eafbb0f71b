// The match page's fork form (niwa.web.fork): its step follows the replay viewer's
// (#step=N in the address, kept there by viewer.js) until the owner types one.
const form = document.getElementById("fork");
const input = document.getElementById("fork-step");
if (form && input) {
  let typed = false;
  input.addEventListener("input", () => {
    typed = true;
  });
  const follow = () => {
    if (typed) return;
    const step = new URLSearchParams(location.hash.replace(/^#/, "")).get("step");
    if (step !== null && /^\d+$/.test(step)) input.value = step;
  };
  follow();
  for (const event of ["focusin", "pointerenter", "submit"]) {
    form.addEventListener(event, follow);
  }
}
