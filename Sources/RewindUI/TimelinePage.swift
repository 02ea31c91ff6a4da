/// The timeline page: plain HTML, CSS and JavaScript served by the binary (no build step, no
/// network access). It talks to the JSON API with the token from its own address.
enum TimelinePage {
  static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>rewind ui</title>
    <style>
    :root { --bg:#f7f7f8; --panel:#fff; --line:#e3e3e8; --ink:#1d1d1f; --dim:#6e6e73; --accent:#0a66d8;
      --add:#e6f6ea; --addink:#146c2e; --del:#fdecec; --delink:#a4262c; --chg:#fff3cd; }
    * { box-sizing: border-box; }
    [hidden] { display:none !important; }
    body { margin:0; font:13px/1.45 -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; color:var(--ink); background:var(--bg); }
    header { display:flex; align-items:center; gap:12px; padding:10px 16px; background:var(--panel); border-bottom:1px solid var(--line); position:sticky; top:0; z-index:2; }
    header h1 { font-size:15px; margin:0; font-weight:600; }
    header .file { color:var(--dim); font-family:ui-monospace, Menlo, monospace; }
    header .spacer { flex:1; }
    #live { width:9px; height:9px; border-radius:50%; background:#34c759; display:inline-block; }
    #live.stale { background:#ff9f0a; }
    button { font:inherit; padding:4px 10px; border:1px solid var(--line); background:var(--panel); border-radius:6px; cursor:pointer; }
    button:hover { border-color:var(--accent); color:var(--accent); }
    button:disabled { opacity:.45; cursor:default; color:inherit; border-color:var(--line); }
    main { display:grid; grid-template-columns: minmax(420px, 46%) 1fr; gap:12px; padding:12px; height:calc(100vh - 50px); }
    section { background:var(--panel); border:1px solid var(--line); border-radius:8px; display:flex; flex-direction:column; min-height:0; }
    section h2 { font-size:12px; text-transform:uppercase; letter-spacing:.04em; color:var(--dim); margin:0; padding:8px 12px; border-bottom:1px solid var(--line); display:flex; gap:8px; align-items:center; }
    .filters { display:flex; gap:6px; padding:8px 12px; border-bottom:1px solid var(--line); flex-wrap:wrap; }
    .filters input, .filters select { font:inherit; padding:3px 6px; border:1px solid var(--line); border-radius:5px; }
    .filters input { width:110px; }
    .scroll { overflow:auto; min-height:0; flex:1; }
    table { border-collapse:collapse; width:100%; }
    #timeline td { padding:3px 8px; border-bottom:1px solid #f0f0f3; white-space:nowrap; }
    #timeline tr { cursor:pointer; }
    #timeline tr:hover td { background:#f4f8ff; }
    #timeline tr.selected td { background:#e5efff; }
    #timeline tr.undone td { color:var(--dim); text-decoration:line-through; }
    #timeline tr.now td.seq::before { content:"now ▶ "; color:var(--accent); font-weight:600; }
    #timeline thead th { position:sticky; top:0; background:var(--panel); text-align:left; font-weight:500; color:var(--dim); font-size:11px; padding:4px 8px; border-bottom:1px solid var(--line); }
    td.seq { font-family:ui-monospace, Menlo, monospace; text-align:right; color:var(--dim); }
    td.step { border-left:3px solid transparent; font-size:11px; color:var(--dim); }
    td.summary { color:var(--dim); overflow:hidden; text-overflow:ellipsis; max-width:220px; }
    .kind { font-size:11px; padding:0 6px; border-radius:9px; background:#eef0f4; }
    .kind.undo, .kind.redo { background:#efe7ff; } .kind.jump, .kind.restore { background:#e3f1ff; }
    .kind.repair { background:#fff0d9; } .kind.import, .kind.compact, .kind.initialize { background:#e8f6ec; }
    #older { margin:6px 12px; }
    .right { display:grid; grid-template-rows: minmax(200px, 50%) 1fr; gap:12px; min-height:0; }
    #entry-detail h3 { font-size:12px; color:var(--dim); margin:4px 0; }
    .pad { padding:10px 12px; }
    pre { margin:0; font:12px/1.4 ui-monospace, Menlo, monospace; white-space:pre-wrap; word-break:break-all; }
    .diff { margin:8px 0 14px; }
    .diff caption { text-align:left; font-weight:600; padding:2px 0; }
    .diff th, .diff td { border:1px solid var(--line); padding:2px 6px; font:12px ui-monospace, Menlo, monospace; text-align:left; }
    .diff th { background:#fafafa; color:var(--dim); font-weight:normal; }
    .diff td.changed { background:var(--chg); }
    .diff tr.before td:first-child { color:var(--delink); } .diff tr.after td:first-child { color:var(--addink); }
    .diff tr.inserted td { background:var(--add); } .diff tr.deleted td { background:var(--del); }
    .tree div { font:12px ui-monospace, Menlo, monospace; padding:1px 0; }
    .tree .old { background:var(--del); color:var(--delink); text-decoration:line-through; padding:0 3px; }
    .tree .new { background:var(--add); color:var(--addink); padding:0 3px; }
    .sliders { display:flex; flex-direction:column; gap:6px; padding:8px 12px; border-bottom:1px solid var(--line); }
    .sliders label { display:flex; gap:8px; align-items:center; }
    .sliders input[type=range] { flex:1; }
    .sliders output { font-family:ui-monospace, Menlo, monospace; min-width:60px; }
    .actions { display:flex; gap:6px; flex-wrap:wrap; }
    .state { display:grid; grid-template-columns: 1.3fr 1fr; gap:12px; }
    .state h3 { font-size:12px; margin:6px 0 4px; color:var(--dim); }
    .state table td, .state table th { border-bottom:1px solid #f0f0f3; padding:2px 6px; font:12px ui-monospace, Menlo, monospace; text-align:left; }
    .list { font:12px ui-monospace, Menlo, monospace; }
    #message { color:var(--delink); min-height:1em; }
    #message.ok { color:var(--addink); }
    .muted { color:var(--dim); }
    </style>
    </head>
    <body>
    <header>
      <h1>rewind ui</h1><span class="file" id="file"></span>
      <span id="live" title="live: new entries appear within a second"></span>
      <span id="position" class="muted"></span>
      <span class="spacer"></span>
      <span id="message"></span>
      <button id="undo">Undo</button><button id="redo">Redo</button><button id="snapshot">Snapshot…</button>
      <select id="snapshots" title="restore a labelled snapshot"><option value="">snapshots…</option></select>
    </header>
    <main>
      <section>
        <h2>Timeline <span class="muted" id="count"></span></h2>
        <div class="filters">
          <select id="f-kind" title="kind">
            <option value="">every kind</option><option>action</option><option>undo</option><option>redo</option>
            <option>jump</option><option>repair</option><option>restore</option><option>import</option>
            <option>compact</option><option>migration</option><option>initialize</option>
          </select>
          <input id="f-action" placeholder="action name">
          <input id="f-table" placeholder="table">
          <input id="f-text" placeholder="search payloads, values">
        </div>
        <div class="scroll" id="timeline-scroll">
          <button id="older">Load older entries</button>
          <table id="timeline"><thead><tr><th>seq</th><th>time (UTC)</th><th>kind</th><th>action</th><th>undo step</th><th>rows changed</th></tr></thead><tbody></tbody></table>
        </div>
      </section>
      <div class="right">
        <section>
          <h2>Entry <span class="muted" id="entry-title">select an entry</span></h2>
          <div class="scroll pad" id="entry-detail"><p class="muted">Select an entry in the timeline to see its payload and the rows it changed.</p></div>
        </section>
        <section>
          <h2>State at a seq
            <label style="margin-left:auto;text-transform:none;letter-spacing:0"><input type="checkbox" id="split"> split document / view</label>
          </h2>
          <div class="sliders">
            <label id="all-row">All <input type="range" id="all-slider" min="0" max="0"><output id="all-out"></output></label>
            <label id="doc-row" hidden>Document <input type="range" id="doc-slider" min="0" max="0"><output id="doc-out"></output></label>
            <label id="view-row" hidden>View state <input type="range" id="view-slider" min="0" max="0"><output id="view-out"></output></label>
            <div class="actions">
              <button id="restore-all">Restore the file to this state</button>
              <button id="restore-document">Restore document only</button>
              <button id="restore-view">Restore view only</button>
              <button id="export">Export JSON</button>
            </div>
          </div>
          <div class="scroll pad state">
            <div><h3>Entities</h3><div id="state-entities"></div><h3>Order lists</h3><div id="state-lists"></div></div>
            <div><h3>View state</h3><div id="state-view" class="tree"></div></div>
          </div>
        </section>
      </div>
    </main>
    <script>
    "use strict";
    // The token leaves the address bar (and the history) once read; a reload finds it here.
    const token = new URLSearchParams(location.search).get("token") || sessionStorage.getItem("rewind-ui-token") || "";
    sessionStorage.setItem("rewind-ui-token", token);
    history.replaceState(null, "", location.pathname);
    const $ = (id) => document.getElementById(id);
    const el = (tag, attrs = {}, ...children) => {
      const node = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) { if (k === "class") node.className = v; else node.setAttribute(k, v); }
      for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
      return node;
    };
    async function api(path, options = {}) {
      const response = await fetch(path, { ...options, headers: { "X-Rewind-Token": token, "Content-Type": "application/json" } });
      const body = await response.json();
      if (!response.ok) throw new Error(body.error || response.statusText);
      return body;
    }
    // lastShown: the largest seq in the table; filters: the ones the table was loaded with.
    const state = { head: null, first: null, lastShown: 0, selected: null, redo: new Set(), cache: new Map(),
      ticket: 0, filters: "", polling: null };
    let sayTimer = null;
    function say(text, ok = false) {
      $("message").textContent = text; $("message").className = ok ? "ok" : "";
      clearTimeout(sayTimer); sayTimer = setTimeout(() => { $("message").textContent = ""; }, 8000);
    }
    function readFilters() {
      const p = new URLSearchParams();
      if ($("f-kind").value) p.set("kind", $("f-kind").value);
      for (const [id, key] of [["f-action", "action"], ["f-table", "table"], ["f-text", "q"]]) {
        if ($(id).value.trim()) p.set(key, $(id).value.trim());
      }
      return p.toString();
    }
    function query(extra) {
      const p = new URLSearchParams(state.filters); p.set("brief", "1");
      for (const [k, v] of Object.entries(extra)) p.set(k, v);
      return "/api/log?" + p;
    }
    function stepColor(step) { return step == null ? "transparent" : `hsl(${(step * 47) % 360} 65% 55%)`; }
    function row(entry) {
      const tr = el("tr", { "data-seq": entry.seq, "data-kind": entry.kind, "data-action": entry.action },
        el("td", { class: "seq" }, entry.seq),
        el("td", { class: "muted", title: entry.time }, entry.time.slice(11, 23)),
        el("td", {}, el("span", { class: "kind " + entry.kind }, entry.kind)),
        el("td", {}, entry.action),
        el("td", { class: "step", title: entry.group ? "group " + entry.group : "" }, entry.step == null ? "" : "step " + entry.step + (entry.group ? " ·" : "")),
        el("td", { class: "summary", title: entry.summary }, entry.summary));
      tr.querySelector(".step").style.borderLeftColor = stepColor(entry.step);
      if (entry.step != null && state.redo.has(entry.step)) tr.classList.add("undone");
      tr.addEventListener("click", () => select(entry.seq));
      return tr;
    }
    function markNow() {
      document.querySelectorAll("#timeline tr.now").forEach((tr) => tr.classList.remove("now"));
      const last = document.querySelector(`#timeline tbody tr[data-seq="${state.head.lastSeq}"]`);
      if (last) last.classList.add("now");
      $("count").textContent = `${document.querySelectorAll("#timeline tbody tr").length} shown`;
    }
    async function reloadTimeline() {
      state.filters = readFilters();
      const last = state.head.lastSeq;
      const page = await api(query({ limit: 300, before: last + 1 }));
      $("timeline").tBodies[0].replaceChildren(...page.entries.map(row));
      state.first = page.entries.length ? page.entries[0].seq : null;
      state.lastShown = last;
      $("older").hidden = page.entries.length < 300;
      markNow();
      $("timeline-scroll").scrollTop = $("timeline-scroll").scrollHeight;
    }
    async function loadOlder() {
      if (state.first == null) return;
      const page = await api(query({ limit: 300, before: state.first }));
      const scroller = $("timeline-scroll");
      const height = scroller.scrollHeight;
      $("timeline").tBodies[0].prepend(...page.entries.map(row));
      scroller.scrollTop += scroller.scrollHeight - height;  // the rows in view stay in view
      if (page.entries.length) state.first = page.entries[0].seq;
      $("older").hidden = page.entries.length < 300;
      markNow();
    }
    async function refreshHead() {
      const head = await api("/api/head");
      const previous = state.head;
      const grew = !previous || head.lastSeq !== previous.lastSeq;
      // Compacted or replaced by another process: the seqs shown may be gone. Tables rebuilt
      // after hand edits: states read from them before may have held the edits.
      const rewritten = previous && (head.baseSeq !== previous.baseSeq || head.lastSeq < previous.lastSeq
        || head.tablesRebuilt !== previous.tablesRebuilt);
      state.head = head;
      if (rewritten) { state.cache.clear(); await reloadTimeline(); }
      state.redo = new Set(head.redoStepIds);
      $("file").textContent = head.path;
      $("position").textContent = `last seq ${head.lastSeq}` + (head.baseSeq ? ` · history starts after seq ${head.baseSeq}` : "")
        + ` · ${head.snapshots.length} snapshot${head.snapshots.length === 1 ? "" : "s"}`;
      $("undo").disabled = head.readOnly || !head.canUndo; $("redo").disabled = head.readOnly || !head.canRedo;
      const labels = head.snapshots.filter((s) => s.label != null);
      $("snapshots").replaceChildren(el("option", { value: "" }, labels.length ? "restore a snapshot…" : "no labelled snapshots"),
        ...labels.map((s) => el("option", { value: s.label }, `${s.label} (seq ${s.seq})`)));
      $("snapshots").disabled = head.readOnly || !labels.length;
      for (const id of ["snapshot", "restore-all", "restore-document", "restore-view"]) $(id).disabled = head.readOnly;
      if (head.readOnly) $("position").textContent += " · read-only";
      for (const id of ["all-slider", "doc-slider", "view-slider"]) {
        const slider = $(id); const atEnd = Number(slider.value) === Number(slider.max) || slider.max === "0";
        slider.min = head.baseSeq; slider.max = head.lastSeq; if (atEnd) slider.value = head.lastSeq;
      }
      return grew || rewritten;
    }
    // One poll at a time; a poll asked for while one runs runs right after it.
    function poll() {
      if (state.polling) { state.pollAgain = true; return state.polling; }
      state.polling = (async () => {
        do {
          state.pollAgain = false;
          try { await catchUp(); $("live").className = ""; } catch (error) { $("live").className = "stale"; }
        } while (state.pollAgain);
        state.polling = null;
      })();
      return state.polling;
    }
    // Appends every entry after the last one shown, page by page, however many arrived, and
    // shows the state again (the history grew, or was rewritten under the states shown).
    async function catchUp() {
      if (!(await refreshHead())) return;
      const scroller = $("timeline-scroll");
      const atBottom = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 4;
      const last = state.head.lastSeq;
      while (state.lastShown < last) {
        const page = await api(query({ from: state.lastShown + 1, before: last + 1, limit: 500 }));
        const fresh = page.entries.filter((e) => e.seq > state.lastShown);
        $("timeline").tBodies[0].append(...fresh.map(row));
        state.lastShown = page.entries.length < 500 ? last : page.entries[page.entries.length - 1].seq;
      }
      document.querySelectorAll("#timeline tbody tr").forEach((tr) => {
        const step = tr.querySelector(".step").textContent.match(/step (\d+)/);
        tr.classList.toggle("undone", !!step && state.redo.has(Number(step[1])));
      });
      // A live page keeps the newest 5,000 rows; "Load older entries" brings back the rest.
      const rows = $("timeline").tBodies[0].rows;
      if (rows.length > 5000) {
        while (rows.length > 5000) rows[0].remove();
        state.first = Number(rows[0].dataset.seq);
        $("older").hidden = false;
      }
      markNow();
      if (atBottom) scroller.scrollTop = scroller.scrollHeight;
      await showState();
    }
    function parse(text) { try { return JSON.parse(text); } catch { return text; } }
    function show(value) { return value === undefined ? "" : typeof value === "string" ? JSON.stringify(value) : JSON.stringify(value); }
    function diffTable(table, changes) {
      const columns = [...new Set(changes.flatMap((c) => Object.keys({ ...(c.before || {}), ...(c.after || {}) })))];
      const t = el("table", { class: "diff", "data-table": table }, el("caption", {}, table));
      t.append(el("tr", {}, el("th", {}, ""), ...columns.map((c) => el("th", {}, c))));
      for (const c of changes) {
        const kind = c.before == null ? "inserted" : c.after == null ? "deleted" : "updated";
        for (const [side, image] of [["before", c.before], ["after", c.after]]) {
          if (image == null) continue;
          const tr = el("tr", { class: side + (kind === "updated" ? "" : " " + kind) }, el("td", {}, kind === "updated" ? side : kind));
          for (const col of columns) {
            const td = el("td", {}, show(image[col]));
            if (kind === "updated" && show(c.before[col]) !== show(c.after[col])) td.classList.add("changed");
            tr.append(td);
          }
          t.append(tr);
        }
      }
      return t;
    }
    function viewDiff(changes) {
      const byPath = new Map(changes.map((c) => [c.key.path, c]));
      const box = el("div", { class: "tree", "data-table": "view_state" }, el("div", { class: "muted" }, "view state"));
      box.append(...treeLines(byPath.keys(), (path, name, indent) => {
        const c = byPath.get(path);
        const line = el("div", { "data-path": path, style: `padding-left:${indent}px` }, name + ": ");
        if (c.before) line.append(el("span", { class: "old" }, show(parse(c.before.value))), " ");
        if (c.after) line.append(el("span", { class: "new" }, show(parse(c.after.value))));
        return line;
      }));
      return box;
    }
    async function select(seq) {
      state.selected = seq;
      document.querySelectorAll("#timeline tr.selected").forEach((tr) => tr.classList.remove("selected"));
      const tr = document.querySelector(`#timeline tr[data-seq="${seq}"]`); if (tr) tr.classList.add("selected");
      try {
        const entry = await api("/api/entry/" + seq);
        $("entry-title").textContent = `seq ${entry.seq} · ${entry.kind} · ${entry.action} · ${entry.time}`;
        const detail = $("entry-detail"); detail.replaceChildren();
        detail.append(el("h3", {}, "Row changes"));
        const byTable = new Map();
        for (const c of entry.changes) byTable.set(c.table, [...(byTable.get(c.table) || []), c]);
        if (!byTable.size) detail.append(el("p", { class: "muted" }, "No rows changed."));
        for (const [table, changes] of byTable) detail.append(table === "view_state" ? viewDiff(changes) : diffTable(table, changes));
        detail.append(el("h3", {}, "Payload"), el("pre", { id: "payload" }, JSON.stringify(entry.payload, null, 1)));
      } catch (error) { say(error.message); }
      for (const id of ["all-slider", "doc-slider", "view-slider"]) $(id).value = seq;
      await showState();
    }
    // Promises are cached, so one state is fetched once however many ask for it.
    function stateAt(seq) {
      if (!state.cache.has(seq)) {
        if (state.cache.size >= 20) state.cache.delete(state.cache.keys().next().value);
        const request = api("/api/state?at=" + seq);
        request.catch(() => state.cache.delete(seq));
        state.cache.set(seq, request);
      }
      return state.cache.get(seq);
    }
    function renderEntities(document_) {
      const box = $("state-entities"); box.replaceChildren();
      for (const [table, rows] of Object.entries(document_.entities)) {
        const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
        const t = el("table", { "data-table": table }, el("caption", { style: "text-align:left" }, `${table} (${rows.length})`),
          el("tr", {}, ...columns.map((c) => el("th", {}, c))));
        // A large table shows its first rows: the page stays responsive at 100,000 entities.
        for (const r of rows.slice(0, 500)) t.append(el("tr", { "data-row": show(r) }, ...columns.map((c) => el("td", {}, show(r[c])))));
        box.append(t);
        if (rows.length > 500) box.append(el("p", { class: "muted" }, `… and ${rows.length - 500} more (Export JSON has them all)`));
      }
      const lists = $("state-lists"); lists.replaceChildren();
      for (const [name, ids] of Object.entries(document_.lists)) lists.append(el("div", { class: "list", "data-list": name }, `${name}: ${ids.every(id => id !== null && typeof id === "object" && "owner" in id) && ids.length > 0 ? ids.map(list => `${JSON.stringify(list.owner)} [${list.ids.join(", ")}]`).join(", ") : `[${ids.map(id => typeof id === "object" ? JSON.stringify(id) : id).join(", ")}]`}`));
    }
    // Paths as a tree: `list.searchText` under a `list` node.
    function treeLines(paths, line) {
      const shown = new Set();
      const box = [];
      for (const path of [...paths].sort()) {
        const parts = path.split(".");
        for (let i = 1; i < parts.length; i++) {
          const prefix = parts.slice(0, i).join(".");
          if (!shown.has(prefix)) { shown.add(prefix); box.push(el("div", { style: `padding-left:${(i - 1) * 14}px` }, parts[i - 1] + ":")); }
        }
        box.push(line(path, parts[parts.length - 1], (parts.length - 1) * 14));
      }
      return box;
    }
    function renderView(view) {
      $("state-view").replaceChildren(...treeLines(Object.keys(view), (path, name, indent) =>
        el("div", { "data-path": path, style: `padding-left:${indent}px` }, `${name}: ${show(view[path])}`)));
    }
    function seqs() {
      const split = $("split").checked;
      const all = Number($("all-slider").value);
      return { split, doc: split ? Number($("doc-slider").value) : all, view: split ? Number($("view-slider").value) : all };
    }
    async function showState() {
      const { split, doc, view } = seqs();
      $("all-out").textContent = "seq " + $("all-slider").value;
      $("doc-out").textContent = "seq " + $("doc-slider").value;
      $("view-out").textContent = "seq " + $("view-slider").value;
      // While a slider is dragged, only the latest position is drawn.
      const ticket = ++state.ticket;
      try {
        const [d, v] = await Promise.all([stateAt(doc), stateAt(view)]);
        if (ticket !== state.ticket) return;
        renderEntities(d); renderView(v.view);
      } catch (error) { say(error.message); }
    }
    async function act(label, path, body) {
      try {
        const result = await api(path, { method: "POST", body: JSON.stringify(body || {}) });
        say(result.seq == null ? `${label}: nothing changed` : `${label}: logged as seq ${result.seq}${result.step ? " (" + result.step + ")" : ""}`, true);
        await poll();
      } catch (error) { say(`${label} refused: ${error.message}`); }
    }
    $("undo").onclick = () => act("undo", "/api/undo");
    $("redo").onclick = () => act("redo", "/api/redo");
    $("snapshots").onchange = () => {
      const label = $("snapshots").value;
      if (label) act(`restore snapshot ${label}`, "/api/restore", { snapshot: label });
    };
    $("snapshot").onclick = () => { const label = prompt("Snapshot label"); if (label) act("snapshot", "/api/snapshot", { label }); };
    $("restore-all").onclick = () => { const { split, doc, view } = seqs(); if (split && doc !== view) say("Unsplit, or restore the document and the view one at a time."); else act("restore", "/api/restore", { to: doc, timeline: "all" }); };
    $("restore-document").onclick = () => act("restore document", "/api/restore", { to: seqs().doc, timeline: "document" });
    $("restore-view").onclick = () => act("restore view", "/api/restore", { to: seqs().view, timeline: "view" });
    // The server's bytes, untouched: `rewind export --at` gives the same file, 64-bit ids exact.
    $("export").onclick = async () => {
      const { doc, view } = seqs();
      const response = await fetch(`/api/export?at=${doc}` + (doc === view ? "" : `&view_at=${view}`), { headers: { "X-Rewind-Token": token } });
      if (!response.ok) { say((await response.json()).error); return; }
      const a = el("a", { href: URL.createObjectURL(await response.blob()), download: `state-at-${doc}${doc === view ? "" : "-view-" + view}.json` });
      document.body.append(a); a.click(); a.remove();
    };
    $("split").onchange = () => {
      const split = $("split").checked;
      $("all-row").hidden = split; $("doc-row").hidden = !split; $("view-row").hidden = !split;
      if (split) $("doc-slider").value = $("view-slider").value = $("all-slider").value;
      else $("all-slider").value = $("doc-slider").value;
      showState();
    };
    // Sliders and filters act once the user pauses, not on every step of a drag or keystroke.
    const debounce = (f, ms) => { let timer; return () => { clearTimeout(timer); timer = setTimeout(f, ms); }; };
    const showSoon = debounce(showState, 120);
    for (const id of ["all-slider", "doc-slider", "view-slider"]) $(id).oninput = () => {
      $("all-out").textContent = "seq " + $("all-slider").value;
      $("doc-out").textContent = "seq " + $("doc-slider").value;
      $("view-out").textContent = "seq " + $("view-slider").value;
      showSoon();
    };
    const reloadSoon = debounce(() => reloadTimeline().catch((error) => say(error.message)), 300);
    for (const id of ["f-kind", "f-action", "f-table", "f-text"]) $(id).oninput = reloadSoon;
    $("older").onclick = loadOlder;
    (async () => {
      try {
        await refreshHead();
        await reloadTimeline();
        await showState();
        setInterval(poll, 700);
      } catch (error) { say(error.message); }
    })();
    </script>
    </body>
    </html>
    """#
}
