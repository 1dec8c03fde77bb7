// Topic Explorer's map in the browser: topic labels that never overlap at any zoom, and a zoom that
// survives the map being drawn afresh. Installed once into the dashboard's page (dashboard/maplabels.py).
//
// The map's figure carries `layout.meta`: `topicExplorerMap`, `store` (names the build's kept zoom), `view` (the
// user's view; a new one after "Reset view"), `labels` (best first: text t, position x/y, colour c, font size s,
// the cells o of the map's `grid` that the label's own papers occupy) and `marker` (the points' size in pixels).
// The zoom is kept in the tab's sessionStorage, so it survives a reload; a new view in the same page means the
// user reset it (or zoomed to a search's matches), so the new view's ranges replace the kept zoom.
(function () {
  if (window.__topicExplorerMapView) return;
  window.__topicExplorerMapView = true;
  const STORE = "topic-explorer-view:";
  const GAP = 3; // pixels kept free around each label
  const hooked = new WeakSet();

  const isMap = (gd) => gd.layout && gd.layout.meta && gd.layout.meta.topicExplorerMap && gd._fullLayout;
  const ranges = (gd) => ({ x: gd._fullLayout.xaxis.range.slice(), y: gd._fullLayout.yaxis.range.slice() });
  const same = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) <= 1e-9 * (1 + Math.abs(a[1] - a[0]));

  const viewsDrawn = {}; // kept-zoom name -> the view this page last drew under it

  function remember(gd) {
    try {
      window.sessionStorage.setItem(STORE + gd.layout.meta.store, JSON.stringify(ranges(gd)));
    } catch (error) { /* storage full or disabled: the view is simply not kept */ }
  }

  // A map drawn afresh (new filters, a cleared selection) starts from the whole map; put the user's view back.
  function restore(gd) {
    const key = STORE + gd.layout.meta.store, view = gd.layout.meta.view;
    const renewed = key in viewsDrawn && viewsDrawn[key] !== view; // "Reset view" or "Zoom to matches"
    viewsDrawn[key] = view;
    if (renewed) {
      remember(gd); // the new view's own ranges are the ones to keep, through a reload too
      return false;
    }
    let saved = null;
    try {
      saved = JSON.parse(window.sessionStorage.getItem(key));
    } catch (error) { saved = null; }
    if (!saved || !Array.isArray(saved.x) || !Array.isArray(saved.y)) return false;
    const now = ranges(gd);
    if (same(now.x, saved.x) && same(now.y, saved.y)) return false;
    const relayout = window.Plotly._guiRelayout || window.Plotly.relayout; // a GUI edit: kept by uirevision
    relayout(gd, { "xaxis.range": saved.x, "yaxis.range": saved.y });
    return true;
  }

  function layer(gd) {
    let box = gd.querySelector(".te-map-labels");
    const container = gd.querySelector(".svg-container");
    if (!box && container) {
      box = document.createElement("div");
      box.className = "te-map-labels";
      box.style.cssText = "position:absolute;pointer-events:none;overflow:hidden;";
      const top = container.querySelectorAll(":scope > svg.main-svg"); // under the hover layer, above the points
      container.insertBefore(box, top.length > 1 ? top[top.length - 1] : null);
    }
    if (box) {
      const size = gd._fullLayout._size;
      Object.assign(box.style, { left: size.l + "px", top: size.t + "px", width: size.w + "px", height: size.h + "px" });
    }
    return box;
  }

  function build(box, labels) {
    box.textContent = "";
    box.__nodes = labels.map((label) => {
      const node = document.createElement("div");
      node.className = "te-map-label";
      node.textContent = String(label.t); // text, never HTML; a long label comes as two lines
      node.style.cssText =
        "position:absolute;white-space:pre;text-align:center;color:#1f2937;background:rgba(255,255,255,0.78);" +
        "border:1px solid;border-radius:3px;padding:1px 4px;line-height:1.25;font-family:sans-serif;";
      node.style.fontSize = Number(label.s) + "px";
      node.style.borderColor = String(label.c);
      box.appendChild(node);
      return node;
    });
    box.__sizes = box.__nodes.map((node) => [node.offsetWidth, node.offsetHeight]); // measured once, in one pass
    box.__cells = labels.map((label) => new Set(label.o || []));
  }

  // Tried in turn around a group's centre: the centre, then rings of spots above, below, beside and diagonally.
  const DIRECTIONS = [[0, -1], [0, 1], [1, 0], [-1, 0], [1, -1], [-1, -1], [1, 1], [-1, 1]];
  const RINGS = 8;

  // Whether the rectangle `r` (plot pixels), widened by a marker's radius, covers a cell its own papers occupy.
  function coversOwn(full, grid, cells, r, pad) {
    if (!cells.size || !grid) return false;
    const [x0, x1, y0, y1, n] = grid;
    const column = (px) => Math.floor(((full.xaxis.p2l(px) - x0) / (x1 - x0)) * n);
    const row = (py) => Math.floor(((full.yaxis.p2l(py) - y0) / (y1 - y0)) * n);
    const c0 = Math.max(column(r.l - pad), 0), c1 = Math.min(column(r.r + pad), n - 1);
    const rows = [row(r.t - pad), row(r.b + pad)];
    const r0 = Math.max(Math.min(...rows), 0), r1 = Math.min(Math.max(...rows), n - 1);
    for (let y = r0; y <= r1; y++) for (let x = c0; x <= c1; x++) if (cells.has(y * n + x)) return true;
    return false;
  }

  // Best first: each label as near its group's centre as it can be without covering its own papers or a label
  // placed before it, slid inside the map at its edges; hidden only when no spot nearby is free.
  function place(gd) {
    const box = layer(gd);
    if (!box) return;
    const meta = gd.layout.meta, labels = meta.labels || [];
    const signature = JSON.stringify(labels);
    if (box.__signature !== signature) {
      build(box, labels);
      box.__signature = signature;
    }
    const full = gd._fullLayout, width = full._size.w, height = full._size.h;
    const pad = Number(meta.marker || 0) / 2;
    const placed = [];
    labels.forEach((label, i) => {
      const node = box.__nodes[i];
      const [w, h] = box.__sizes[i];
      const cx = full.xaxis.l2p(label.x), cy = full.yaxis.l2p(label.y);
      let spot = null;
      for (let ring = 0; ring <= RINGS && !spot; ring++) {
        for (const [ux, uy] of ring ? DIRECTIONS : [[0, 0]]) {
          const dx = ux * ring * (w / 2 + GAP), dy = uy * ring * (h * 0.6 + GAP);
          // A label near the map's edge slides inside it rather than disappearing.
          const l = Math.min(Math.max(cx + dx - w / 2 - GAP, 0), width - w - 2 * GAP);
          const t = Math.min(Math.max(cy + dy - h / 2 - GAP, 0), height - h - 2 * GAP);
          const r = { l: l, r: l + w + 2 * GAP, t: t, b: t + h + 2 * GAP };
          if (r.l < 0 || r.t < 0) continue; // wider or taller than the whole map
          if (placed.some((p) => r.l < p.r && p.l < r.r && r.t < p.b && p.t < r.b)) continue;
          if (coversOwn(full, meta.grid, box.__cells[i], r, pad)) continue;
          spot = r;
          break;
        }
      }
      node.style.display = spot ? "block" : "none";
      if (spot) {
        placed.push(spot);
        node.style.left = spot.l + GAP + "px";
        node.style.top = spot.t + GAP + "px";
      }
    });
  }

  const movesAxes = (event) => Object.keys(event || {}).some((key) => /^[xy]axis\.(range|autorange)/.test(key));

  // Put the saved view back only when Streamlit hands the map a new figure (a new layout object), never
  // in the middle of the user's own zoom, whose redraw comes before its relayout event.
  function drawn(gd) {
    if (gd.layout !== gd.__teLayout) {
      gd.__teLayout = gd.layout;
      if (restore(gd)) return;
    }
    place(gd);
  }

  function hook(gd) {
    hooked.add(gd);
    gd.on("plotly_relayout", (event) => {
      if (movesAxes(event)) remember(gd);
      place(gd);
    });
    gd.on("plotly_relayouting", () => place(gd));
    gd.on("plotly_afterplot", () => {
      dropGhosts();
      drawn(gd);
    });
    dropGhosts();
    drawn(gd);
  }

  // A changed figure is a new element to Streamlit, which keeps the old one, faded, below it until the whole
  // rerun ends (seconds at 20,000 papers): hide such a ghost map as soon as the new one is there.
  const staleOf = (gd) => gd.closest("[data-stale]");
  function dropGhosts() {
    document.querySelectorAll("[data-te-ghost]").forEach((holder) => {
      if (holder.dataset.stale !== "true") { // the element was reused for something current: show it again
        holder.style.display = "";
        delete holder.dataset.teGhost;
      }
    });
    const maps = [...document.querySelectorAll(".js-plotly-plot")].filter(isMap);
    const current = (gd) => !staleOf(gd) || staleOf(gd).dataset.stale !== "true";
    if (maps.length < 2 || !maps.some(current)) return;
    maps.forEach((gd) => {
      const holder = staleOf(gd);
      if (holder && holder.dataset.stale === "true") {
        holder.dataset.teGhost = "1";
        holder.style.display = "none";
      }
    });
  }
  // Called once per batch of changes, before the browser paints: a ghost is never drawn beside its new map, however
  // soon the rerun ends (waiting for the next frame left it there for one frame, and past a fast rerun's end).
  new MutationObserver(dropGhosts).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-stale"] });

  window.setInterval(() => {
    dropGhosts();
    document.querySelectorAll(".js-plotly-plot").forEach((gd) => {
      if (!hooked.has(gd) && isMap(gd)) hook(gd);
      else if (hooked.has(gd) && isMap(gd) && !gd.querySelector(".te-map-labels")) place(gd);
    });
  }, 300);
})();
