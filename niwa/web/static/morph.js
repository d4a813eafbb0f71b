// The board is patched, not replaced: a renderer draws a fresh tree each step, and
// morph() makes the tree on the page equal to it in place, touching only the nodes,
// attributes and texts that changed. The browser then restyles and lays out those
// alone, instead of hundreds of new SVG nodes a step. Nodes keep their identity, so
// listeners a renderer put on its fresh nodes are not carried over: listen on the
// board and tell parts apart by their data- attributes.

function sameKind(a, b) {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName;
}

// A drawing may hold parts lent by svg.js reuse() (marked niwaLent): kept for the next
// step, so what the page takes of them is a copy.
function take(node, lent) {
  return lent || node.niwaLent ? node.cloneNode(true) : node;
}

// `fresh` ready to put on a page whole: each lent part in it replaced by a copy.
export function adopt(fresh) {
  if (fresh.niwaLent) return fresh.cloneNode(true);
  for (const part of fresh.querySelectorAll("*")) {
    if (part.niwaLent) part.replaceWith(part.cloneNode(true));
  }
  return fresh;
}

// `old` (on the page) made equal to `fresh` (same node type and name); returns `old`.
// lent: `fresh` is, or is inside, a lent part (its nodes are copied, not moved).
export function morph(old, fresh, lent = Boolean(fresh.niwaLent)) {
  if (old.nodeType !== 1) {
    if (old.nodeValue !== fresh.nodeValue) old.nodeValue = fresh.nodeValue;
    return old;
  }
  const want = fresh.attributes;
  for (let i = 0; i < want.length; i += 1) {
    const { name, value } = want[i];
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  const have = old.attributes;
  for (let i = have.length - 1; i >= 0; i -= 1) {
    if (!fresh.hasAttribute(have[i].name)) old.removeAttribute(have[i].name);
  }
  let o = old.firstChild;
  let f = fresh.firstChild;
  while (f) {
    const next = f.nextSibling; // f may move to old below
    if (!o) {
      old.append(take(f, lent));
    } else if (o.isEqualNode(f)) {
      o = o.nextSibling; // unchanged: the browser compares whole subtrees natively
    } else if (sameKind(o, f)) {
      morph(o, f, lent || Boolean(f.niwaLent));
      o = o.nextSibling;
    } else {
      const after = o.nextSibling;
      old.replaceChild(take(f, lent), o);
      o = after;
    }
    f = next;
  }
  while (o) {
    const after = o.nextSibling;
    o.remove();
    o = after;
  }
  return old;
}

// `parent`'s one child made equal to `fresh`: patched when it is of the same kind.
export function patchChild(parent, fresh) {
  const current = parent.firstChild;
  if (current && !current.nextSibling && sameKind(current, fresh)) morph(current, fresh);
  else parent.replaceChildren(adopt(fresh));
}
