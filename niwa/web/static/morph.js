// The board is patched, not replaced: a renderer draws a fresh tree each step, and
// morph() makes the tree on the page equal to it in place, touching only the nodes,
// attributes and texts that changed. The browser then restyles and lays out those
// alone, instead of hundreds of new SVG nodes a step. Nodes keep their identity, so
// listeners a renderer put on its fresh nodes are not carried over: listen on the
// board and tell parts apart by their data- attributes.

function sameKind(a, b) {
  return a.nodeType === b.nodeType && a.nodeName === b.nodeName;
}

// `old` (on the page) made equal to `fresh` (same node type and name); returns `old`.
export function morph(old, fresh) {
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
      old.append(f);
    } else if (o.isEqualNode(f)) {
      o = o.nextSibling; // unchanged: the browser compares whole subtrees natively
    } else if (sameKind(o, f)) {
      morph(o, f);
      o = o.nextSibling;
    } else {
      const after = o.nextSibling;
      old.replaceChild(f, o);
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
  else parent.replaceChildren(fresh);
}
