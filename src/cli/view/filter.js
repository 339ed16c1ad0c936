/*
 * filter.js - the event filters of both event-graph pages: -display's file
 * (display.c copies this script into it) and -live's page (live.c serves
 * it at /filter.js).  One copy, so the two pages filter alike.
 *
 * Design.  The filters know nothing of drawing.  A page hands each event
 * over once (add: its task's ltid, tag, call and call site as file,
 * function and line, named by pangaea) and asks test(ev) for what to do
 * with it: SHOW (no filter applies), HIGH (highlighted), DIM (drawn faint:
 * it does not match while others are highlighted) or HIDE.  An event
 * matches when it passes every kind of filter that has something checked
 * (tasks, tags, calls, call sites; within a kind, any checked value); the
 * mode says whether matching events are highlighted or hidden.  Call sites
 * form a tree (files > functions > lines, each with its count of events);
 * checking a node selects its whole subtree, so what is kept is a set of
 * tree paths and an event's site matches when one of its three prefixes
 * is in the set.  Results per site are cached until the filters change.
 *
 * Barriers: a page gives, per task, its positions and where the task's
 * barriers lie among its events (stretches); the k-th stretch is what
 * every task did between its k-th and (k+1)-th barrier (pvm_barrier lets
 * no member pass before all arrived, so the k-th barriers of the members
 * are the same one).  A collapsed stretch is drawn as one narrow band:
 * warp() maps positions so that [lo, hi] of each collapsed stretch takes a
 * small fixed width and everything after moves left.
 *
 * The whole state is kept in the URL fragment, e.g.
 *   #mode=hide&task=2,3&call=pvm_recv&site=sor.c%3Emain%3E212&collapse=1
 * (site paths are file>function>line with each part URI-encoded), so a
 * filtered view can be shared; a page applies it on load.
 */
"use strict";
// Also shared by both pages, though no filter: the packed integers of
// their data (json.c's packer: base64 of zigzag varints), decoded straight
// into a typed array of n values (out, when given: one of at least n
// values of the same type, reused); arithmetic, not bit operations, so
// values past 32 bits (microseconds) stay exact.
window.PangaeaUnpack = function (str, n, Arr, out) {
  const bin = atob(str || "");
  if (!out) out = new Arr(n);
  let p = 0;
  for (let i = 0; i < n; i++) {
    let b = bin.charCodeAt(p++);
    if (b < 128) { out[i] = b & 1 ? -(b + 1) / 2 : b / 2; continue; } // one byte: most values
    let v = b & 127, m = 128;
    do { b = bin.charCodeAt(p++); v += (b & 127) * m; m *= 128; } while (b & 128);
    out[i] = v % 2 ? -(v + 1) / 2 : v / 2;
  }
  return out;
};
// Also shared, no filter: the events a page shows, as Trace Event Format
// JSON (the layout of `pangaea -export perfetto-json`, perfetto_json.c:
// a process per task, pid = tid = ltid + 1; each send and receive a 1-us
// slice named by its call, a task's slices in one microsecond moved apart
// by one; each message whose two ends are kept a flow), which
// ui.perfetto.dev opens.  src: {dir, tasks: [{ltid, program, host}], base
// (whole seconds the times count from), rows: per task the indexes of its
// events to keep, in order, ev(i): {send, call, us (integer microseconds
// since base), t (the recorded time, text), seq, tag, msgid, bytes, to or
// from, received or matched}, links: [send, receive, ...] between kept
// events}.  The pages' "Export for Perfetto" buttons download it.
window.PangaeaTrace = function (src) {
  const out = [], ts = new Map(), q = JSON.stringify;
  src.tasks.forEach((t, k) => {
    const pid = t.ltid + 1, prog = String(t.program).slice(String(t.program).lastIndexOf("/") + 1);
    out.push(q({ ph: "M", pid, tid: pid, name: "process_name", args: { name: "ltid " + t.ltid + ": " + prog + " on " + t.host } }),
      q({ ph: "M", pid, name: "process_sort_index", args: { sort_index: k } }),
      q({ ph: "M", pid, tid: pid, name: "thread_name", args: { name: "ltid " + t.ltid } }));
  });
  src.tasks.forEach((t, k) => {
    let last = -Infinity;
    const pid = t.ltid + 1;
    for (const i of src.rows[k]) {
      const e = src.ev(i), x = Math.max(e.us, last + 1), args = { ltid: t.ltid, seq: e.seq, t: e.t, tag: e.tag, msgid: e.msgid, bytes: e.bytes };
      last = x; ts.set(i, x);
      if (e.send) { args.to = e.to; args.received = e.received; } else { args.from = e.from; args.matched = e.matched; }
      out.push(q({ ph: "X", pid, tid: pid, ts: x, dur: 1, cat: e.send ? "send" : "recv", name: e.call, args }));
    }
  });
  const pidOf = new Map();
  src.tasks.forEach((t, k) => { for (const i of src.rows[k]) pidOf.set(i, t.ltid + 1); });
  for (let j = 0, id = 1; j < src.links.length; j += 2, id++) {
    const s = src.links[j], r = src.links[j + 1];
    if (!ts.has(s) || !ts.has(r)) continue;
    out.push(q({ ph: "s", id, pid: pidOf.get(s), tid: pidOf.get(s), ts: ts.get(s), cat: "message", name: "message" }),
      q({ ph: "f", bp: "e", id, pid: pidOf.get(r), tid: pidOf.get(r), ts: ts.get(r), cat: "message", name: "message" }));
  }
  return '{"displayTimeUnit":"ms","otherData":{"logdir":' + q(src.dir) + ',"view":' + q(src.view || "") + '},\n"traceEvents":[\n' + out.join(",\n") + "\n]}\n";
};
// The text as a file the browser downloads.
window.PangaeaDownload = function (name, text) {
  const a = document.createElement("a"), url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  a.href = url; a.download = name; document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
};
window.PangaeaFilter = (function () {
  const SHOW = 0, HIGH = 1, DIM = 2, HIDE = 3;
  const enc = encodeURIComponent;

  function create(box, onChange) {
    const st = { mode: "highlight", task: new Set(), tag: new Set(), call: new Set(), site: new Set(), collapse: new Set() };
    const counts = { task: new Map(), tag: new Map(), call: new Map() };
    const tree = new Map();             // file -> {n, funcs: func -> {n, lines: line -> n}}
    const sites = new Map();            // "file>func>line" -> site handle
    const open = new Set();             // tree nodes shown open
    let cache = new Map(), stretches = [], dirty = true;

    // ---- the model ------------------------------------------------------
    // A call site, interned: its key and its three prefixes.
    function site(file, func, line) {
      if (file === undefined || file === null || file === "") return null;
      const parts = [String(file), String(func || "?"), String(line || 0)];
      const keys = [enc(parts[0]), enc(parts[0]) + ">" + enc(parts[1]), enc(parts[0]) + ">" + enc(parts[1]) + ">" + enc(parts[2])];
      let s = sites.get(keys[2]);
      if (!s) { s = { parts, keys }; sites.set(keys[2], s); }
      return s;
    }
    function bump(m, k, n) { m.set(k, (m.get(k) || 0) + n); }
    // ev: {ltid, tag (may be undefined), call, site (a handle or null)};
    // n: how many events are alike in these (1 if not given), so that a
    // page with many events hands over each kind of event once.
    function add(ev, n) {
      n = n === undefined ? 1 : n;
      bump(counts.task, ev.ltid, n);
      if (ev.tag !== undefined) bump(counts.tag, ev.tag, n);
      if (ev.call) bump(counts.call, ev.call, n);
      if (ev.site) {
        const [f, fn, l] = ev.site.parts;
        if (!tree.has(f)) tree.set(f, { n: 0, funcs: new Map() });
        const F = tree.get(f); F.n += n;
        if (!F.funcs.has(fn)) F.funcs.set(fn, { n: 0, lines: new Map() });
        const G = F.funcs.get(fn); G.n += n; bump(G.lines, l, n);
      }
      dirty = true;
    }
    function active() { return st.task.size || st.tag.size || st.call.size || st.site.size; }
    function siteMatch(s) {
      if (!s) return false;
      let v = cache.get(s);
      if (v === undefined) { v = s.keys.some((k) => st.site.has(k)); cache.set(s, v); }
      return v;
    }
    function matches(ev) {
      return (!st.task.size || st.task.has(String(ev.ltid))) &&
        (!st.tag.size || (ev.tag !== undefined && st.tag.has(String(ev.tag)))) &&
        (!st.call.size || st.call.has(ev.call)) &&
        (!st.site.size || siteMatch(ev.site));
    }
    function test(ev) {
      if (!active()) return SHOW;
      const m = matches(ev);
      return st.mode === "hide" ? (m ? HIDE : SHOW) : (m ? HIGH : DIM);
    }

    // ---- site paths: checking and unchecking tree nodes -------------------
    function pathKey(parts) { return parts.map(enc).join(">"); }
    function childrenOf(parts) {
      if (parts.length === 0) return Array.from(tree.keys()).map((f) => [f]);
      const F = tree.get(parts[0]);
      if (!F) return [];
      if (parts.length === 1) return Array.from(F.funcs.keys()).map((fn) => [parts[0], fn]);
      const G = F.funcs.get(parts[1]);
      return parts.length === 2 && G ? Array.from(G.lines.keys()).map((l) => [parts[0], parts[1], l]) : [];
    }
    function selectedAbove(parts) { // the selected path at or above parts
      for (let i = parts.length; i >= 1; i--) if (st.site.has(pathKey(parts.slice(0, i)))) return i;
      return 0;
    }
    function checkSite(parts, on) {
      const key = pathKey(parts);
      if (on) {
        for (const k of Array.from(st.site)) if (k.startsWith(key + ">")) st.site.delete(k);
        st.site.add(key);
      } else {
        const i = selectedAbove(parts);
        for (const k of Array.from(st.site)) if (k.startsWith(key + ">")) st.site.delete(k);
        if (i === 0) return;
        // An ancestor is selected: select its other children instead, down to parts.
        st.site.delete(pathKey(parts.slice(0, i)));
        for (let d = i; d < parts.length; d++)
          for (const c of childrenOf(parts.slice(0, d)))
            if (c[d] !== parts[d]) st.site.add(pathKey(c));
      }
    }

    // ---- the URL fragment -------------------------------------------------
    function toHash() {
      const p = [];
      if (st.mode !== "highlight") p.push("mode=" + st.mode);
      for (const k of ["task", "tag", "call"]) if (st[k].size) p.push(k + "=" + Array.from(st[k]).map(enc).join(","));
      if (st.site.size) p.push("site=" + Array.from(st.site).map(enc).join(","));
      if (st.collapse.size) p.push("collapse=" + Array.from(st.collapse).sort((a, b) => a - b).join(","));
      return p.join("&");
    }
    function fromHash(h) {
      for (const k of ["task", "tag", "call", "site", "collapse"]) st[k].clear();
      st.mode = "highlight";
      for (const kv of String(h || "").replace(/^#/, "").split("&")) {
        const i = kv.indexOf("="), k = kv.slice(0, i), v = kv.slice(i + 1);
        if (i < 0 || !v) continue;
        if (k === "mode") st.mode = v === "hide" ? "hide" : "highlight";
        else if (k === "collapse") v.split(",").forEach((x) => { if (/^\d+$/.test(x)) st.collapse.add(+x); });
        else if (st[k]) v.split(",").forEach((x) => { try { st[k].add(decodeURIComponent(x)); } catch (e) { /* bad escape: skipped */ } });
      }
      cache = new Map(); dirty = true;
    }
    function changed() {
      cache = new Map(); dirty = true;
      const h = toHash();
      if (location.hash.replace(/^#/, "") !== h) history.replaceState(null, "", h ? "#" + h : location.pathname + location.search);
      render();
      onChange();
    }
    window.addEventListener("hashchange", () => { fromHash(location.hash); render(); onChange(); });

    // ---- barriers ---------------------------------------------------------
    // rows: [{pos: (i) -> position of the row's i-th event, n, bars: [index of
    // the event after each barrier], barPos: [position of each barrier],
    // barEvents: true when the barriers are events of the row themselves}]
    function setStretches(rows) {
      const out = [];
      for (let r = 0; r < rows.length; r++) {
        const w = rows[r];
        for (let k = 0; k + 1 < w.bars.length; k++) {
          const s = out[k] || (out[k] = { k: k + 1, n: 0, lo: Infinity, hi: -Infinity, parts: [] });
          // Barriers that are events of the row (live) stay out: the band lies between them.
          const a = w.bars[k], b = w.bars[k + 1] - (w.barEvents ? 1 : 0);
          s.parts.push([r, a, b]); s.n += b - a;
          for (const u of [w.barPos[k], w.barPos[k + 1]]) if (u !== undefined) { s.lo = Math.min(s.lo, u); s.hi = Math.max(s.hi, u); }
          for (let i = a; i < b; i++) { const u = w.pos(i); s.lo = Math.min(s.lo, u); s.hi = Math.max(s.hi, u); }
        }
      }
      const sig = out.map((s) => s.n).join(",");
      if (sig !== stretches.map((s) => s.n).join(",")) dirty = true;
      stretches = out.filter((s) => s);
      return stretches;
    }
    function collapsed() { return stretches.filter((s) => st.collapse.has(s.k) && s.hi > s.lo); }
    // Positions with every collapsed stretch squeezed to `width`: the
    // function, and the bands [{k, n, lo, hi}] in warped positions.
    function warp(width) {
      const iv = collapsed().map((s) => [s.lo, s.hi, s]).sort((a, b) => a[0] - b[0]);
      const m = []; // merged, each [lo, hi, [stretches]]
      for (const [lo, hi, s] of iv) {
        const last = m[m.length - 1];
        if (last && lo <= last[1]) { last[1] = Math.max(last[1], hi); last[2].push(s); } else m.push([lo, hi, [s]]);
      }
      const shift = []; let sum = 0;
      for (const x of m) { shift.push(sum); sum += (x[1] - x[0]) - width; }
      const f = (u) => {
        let a = 0, b = m.length;
        while (a < b) { const c = (a + b) >> 1; if (m[c][0] <= u) a = c + 1; else b = c; }
        if (a === 0) return u;
        const x = m[a - 1], sh = shift[a - 1];
        if (u <= x[1]) return x[0] - sh + (x[1] > x[0] ? (u - x[0]) / (x[1] - x[0]) * width : 0);
        return u - sh - (x[1] - x[0]) + width;
      };
      const bands = m.map((x, i) => ({ ks: x[2].map((s) => s.k), n: x[2].reduce((n, s) => n + s.n, 0),
        lo: x[0] - shift[i], hi: x[0] - shift[i] + width }));
      return { f, bands, any: m.length > 0 };
    }
    // The events inside collapsed stretches: mark(row, i) for each.
    function forCollapsed(mark) {
      for (const s of collapsed()) for (const [r, a, b] of s.parts) for (let i = a; i < b; i++) mark(r, i);
    }
    function setCollapse(k, on) { if (on) st.collapse.add(k); else st.collapse.delete(k); changed(); }

    // ---- the panel --------------------------------------------------------
    function el(tag, cls, text) { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
    function checkbox(label, on, set, n, data) {
      const l = el("label", "pf-item"), c = el("input");
      c.type = "checkbox"; c.checked = on; c.onchange = () => set(c.checked);
      if (data) for (const k in data) c.dataset[k] = data[k];
      l.append(c, document.createTextNode(" " + label), el("span", "pf-n", n === undefined ? "" : String(n)));
      return l;
    }
    function listOf(kind, title, fmt) {
      const d = el("div", "pf-group"), keys = Array.from(counts[kind].keys()).sort((a, b) => (+a - +b) || String(a).localeCompare(String(b)));
      d.append(el("div", "pf-title", title));
      for (const k of keys)
        d.append(checkbox(fmt(k), st[kind].has(String(k)), (on) => { if (on) st[kind].add(String(k)); else st[kind].delete(String(k)); changed(); },
          counts[kind].get(k), { kind, value: String(k) }));
      return d;
    }
    function treeNode(parts, label, n, kids) {
      const key = pathKey(parts), li = el("li"), lab = checkbox(label, selectedAbove(parts) > 0, (on) => { checkSite(parts, on); changed(); }, n,
        { kind: "site", path: key });
      const box = lab.querySelector("input");
      box.indeterminate = !box.checked && Array.from(st.site).some((k) => k.startsWith(key + ">"));
      if (kids) {
        const t = el("span", "pf-twist", open.has(key) ? "\u25be" : "\u25b8");
        t.onclick = () => { if (open.has(key)) open.delete(key); else open.add(key); render(); };
        li.append(t, lab);
        if (open.has(key)) { const ul = el("ul"); kids().forEach((k) => ul.append(k)); li.append(ul); }
      } else li.append(lab);
      return li;
    }
    function siteTree() {
      const d = el("div", "pf-group pf-tree"), ul = el("ul");
      d.append(el("div", "pf-title", "call sites"));
      for (const [f, F] of Array.from(tree).sort((a, b) => a[0].localeCompare(b[0])))
        ul.append(treeNode([f], f, F.n, () => Array.from(F.funcs).sort((a, b) => a[0].localeCompare(b[0])).map(([fn, G]) =>
          treeNode([f, fn], fn + "()", G.n, () => Array.from(G.lines).sort((a, b) => +a[0] - +b[0]).map(([l, n]) =>
            treeNode([f, fn, l], "line " + l, n, null))))));
      if (!tree.size) d.append(el("span", "pf-none", "no call sites in the logs"));
      d.append(ul);
      return d;
    }
    function barrierList() {
      const d = el("div", "pf-group");
      d.append(el("div", "pf-title", "between barriers"));
      if (!stretches.length) d.append(el("span", "pf-none", "fewer than two barriers"));
      for (const s of stretches)
        d.append(checkbox("collapse barrier " + s.k + " \u2192 " + (s.k + 1), st.collapse.has(s.k), (on) => setCollapse(s.k, on), s.n,
          { kind: "collapse", value: String(s.k) }));
      return d;
    }
    function render() {
      if (!box) return;
      dirty = false;
      const keepOpen = box.classList.contains("pf-open");
      box.textContent = "";
      const head = el("div", "pf-head"), mode = el("select");
      mode.id = "pf-mode";
      for (const m of ["highlight", "hide"]) { const o = el("option", "", m === "hide" ? "hide matching events" : "highlight matching events"); o.value = m; mode.append(o); }
      mode.value = st.mode;
      mode.onchange = () => { st.mode = mode.value; changed(); };
      const clear = el("button", "", "clear filters");
      clear.id = "pf-clear";
      clear.onclick = () => { for (const k of ["task", "tag", "call", "site", "collapse"]) st[k].clear(); changed(); };
      head.append(el("b", "", "Filters "), mode, clear);
      const body = el("div", "pf-body");
      body.append(listOf("task", "tasks (ltid)", (k) => "ltid " + k), listOf("call", "calls", (k) => k),
        listOf("tag", "tags", (k) => "tag " + k), siteTree(), barrierList());
      box.append(head, body);
      box.classList.toggle("pf-open", keepOpen);
    }
    // A page calls refresh after adding events: the panel is redrawn only
    // when something changed since.
    function refresh() { if (dirty) render(); }

    fromHash(location.hash);
    return {
      SHOW, HIGH, DIM, HIDE, site, add, test, active: () => !!active(), refresh, render,
      setStretches, warp, forCollapsed, setCollapse, collapsedKs: () => Array.from(st.collapse),
      // For tests and scripts: the state, and the tree's paths.
      state: () => ({ mode: st.mode, task: Array.from(st.task), tag: Array.from(st.tag), call: Array.from(st.call),
        site: Array.from(st.site), collapse: Array.from(st.collapse) }),
      hash: toHash, setHash(h) { fromHash(h); changed(); },
      checkSite(parts, on) { checkSite(parts.map(String), on); changed(); },
      stretches: () => stretches.map((s) => ({ k: s.k, n: s.n }))
    };
  }
  return { create, SHOW, HIGH, DIM, HIDE };
})();
