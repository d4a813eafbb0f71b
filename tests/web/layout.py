"""Overlapping text on a page, measured in Chromium: every visible SVG ``<text>`` and
every HTML text node (each line box of it) is a rectangle, cut to the scroll boxes
around it; two texts overlap when their rectangles share more than a pixel each way."""

from __future__ import annotations

from typing import Any

from selenium import webdriver

#: The page's texts as [label, left, top, right, bottom] rectangles, seen on screen.
_TEXTS = """
const root = arguments[0];
const out = [];
const shown = (el) => {
  for (let e = el; e && e !== document.documentElement; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (s.display === "none" || s.visibility === "hidden" || Number(s.opacity) === 0) return false;
    if (e.tagName === "DETAILS" && !e.open && e !== el) {
      // a closed details shows its summary only
      if (!el.closest("summary") || el.closest("details") !== e) return false;
    }
  }
  return true;
};
// The rectangle left of r once every scroll or clip box around el is applied.
const clipped = (el, r) => {
  let [l, t, rt, b] = [r.left, r.top, r.right, r.bottom];
  for (let e = el.parentElement; e; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (s.overflowX !== "visible" || s.overflowY !== "visible") {
      const c = e.getBoundingClientRect();
      l = Math.max(l, c.left); t = Math.max(t, c.top);
      rt = Math.min(rt, c.right); b = Math.min(b, c.bottom);
    }
  }
  return rt - l > 0 && b - t > 0 ? [l, t, rt, b] : null;
};
for (const t of root.querySelectorAll("svg text")) {
  if (!t.textContent.trim() || !shown(t)) continue;
  const r = clipped(t, t.getBoundingClientRect());
  if (r) out.push([t.textContent.trim(), ...r]);
}
const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  const el = n.parentElement;
  if (!n.textContent.trim() || !el || el.closest("svg, select, option, script, style")) continue;
  if (!shown(el)) continue;
  const range = document.createRange();
  range.selectNodeContents(n);
  for (const rect of range.getClientRects()) {
    const r = clipped(el, rect);
    if (r) out.push([n.textContent.trim().slice(0, 60), ...r]);
  }
}
return out;
"""


def texts(driver: webdriver.Chrome, root_css: str = "body") -> list[list[Any]]:
    root = driver.find_element("css selector", root_css)
    found: list[list[Any]] = driver.execute_script(_TEXTS, root)
    return found


def overlaps(found: list[list[Any]], slack: float = 1.0) -> list[str]:
    """The pairs of rectangles that share more than ``slack`` px both ways, named by
    their texts and the shared size."""
    out = []
    for i, (a, al, at, ar, ab) in enumerate(found):
        for b, bl, bt, br, bb in found[i + 1 :]:
            w = min(ar, br) - max(al, bl)
            h = min(ab, bb) - max(at, bt)
            if w > slack and h > slack:
                out.append(f"{a!r} overlaps {b!r} by {w:.0f}x{h:.0f} px at "
                           f"({max(al, bl):.0f}, {max(at, bt):.0f})")  # fmt: skip
    return out


def viewport(driver: webdriver.Chrome, width: int, height: int) -> None:
    """The page's layout viewport exactly ``width`` x ``height`` CSS px (a phone's is
    390 x 844), whatever the window's frame."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600,
    })  # fmt: skip


def reset_viewport(driver: webdriver.Chrome) -> None:
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
