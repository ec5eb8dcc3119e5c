// One map of the replay on a 2D canvas. What never changes during a session (landmarks, route,
// start and finish, in the categories the server layered: payload "bases") is drawn once into an
// offscreen canvas, and so are the marks and names on top; a frame is those two images with the
// Follower's drawing between them.

const NAME_FONT = "11px system-ui, -apple-system, 'Segoe UI', sans-serif";
const SMALL_FONT = "9px system-ui, -apple-system, 'Segoe UI', sans-serif";
const MARK_COLOR = "#111827";

function cellGap(px) {
  return px >= 5 ? 1 : 0;
}

class MapView {
  constructor(container, data, view) {
    this.data = data;
    this.view = view;
    this.rows = data.grid[0];
    this.cols = data.grid[1];
    this.route = new Uint8Array(this.rows * this.cols);
    for (const i of data.route) this.route[i] = 1;
    this.figure = el("figure", "rp-map");
    this.figure.append(el("figcaption", "", data.views[view].title));
    this.canvas = el("canvas");
    this.canvas.dataset.view = view;
    this.canvas.setAttribute("role", "img");
    this.canvas.setAttribute("aria-label", data.views[view].title);
    this.figure.append(this.canvas);
    container.append(this.figure);
    this.base = document.createElement("canvas");
    this.over = document.createElement("canvas");
  }

  // Cell size in CSS pixels, whether the route is shown, whether landmark names are shown.
  configure(px, showRoute, showNames) {
    const dpr = window.devicePixelRatio || 1;
    this.px = px;
    this.dpr = dpr;
    this.showRoute = this.view === "guide" || showRoute;
    const w = this.cols * px;
    const h = this.rows * px;
    for (const c of [this.canvas, this.base, this.over]) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.canvas.dataset.cellPx = String(px);
    this.canvas.dataset.cellGap = String(cellGap(px));
    this.renderBase();
    this.renderOverlay(showNames);
  }

  context(canvas) {
    const ctx = canvas.getContext("2d");
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    return ctx;
  }

  fillCells(ctx, cells, color) {
    const px = this.px;
    const size = px - cellGap(px);
    ctx.fillStyle = color;
    ctx.beginPath();
    for (const i of cells) {
      const r = Math.floor(i / this.cols);
      ctx.rect((i - r * this.cols) * px, r * px, size, size);
    }
    ctx.fill();
  }

  renderBase() {
    const cells = this.data.cells;
    const codes = this.data.bases[this.view === "guide" ? "guide" : this.showRoute ? "follower_route" : "follower"];
    const ctx = this.context(this.base);
    ctx.fillStyle = cellGap(this.px) ? cells.grid_color : cells.colors[cells.codes.empty];
    ctx.fillRect(0, 0, this.cols * this.px, this.rows * this.px);
    const byCode = cells.colors.map(() => []);
    for (let i = 0; i < codes.length; i++) byCode[codes.charCodeAt(i) - 48].push(i);
    byCode.forEach((list, code) => list.length && this.fillCells(ctx, list, cells.colors[code]));
  }

  renderOverlay(showNames) {
    const { data, px } = this;
    const ctx = this.context(this.over);
    ctx.clearRect(0, 0, this.cols * px, this.rows * px);
    const center = (i) => {
      const r = Math.floor(i / this.cols);
      return [(i - r * this.cols + 0.5) * px, (r + 0.5) * px];
    };
    ctx.strokeStyle = MARK_COLOR;
    ctx.lineWidth = Math.max(1.5, px / 6);
    const [sx, sy] = center(data.start_cell);
    ctx.beginPath();
    ctx.arc(sx, sy, Math.max(2, px / 2 - 1), 0, 2 * Math.PI);
    ctx.stroke();
    if (this.showRoute && data.finish !== null) {
      const [fx, fy] = center(data.finish);
      const d = Math.max(2, px / 2 - 1);
      ctx.beginPath();
      ctx.moveTo(fx - d, fy - d);
      ctx.lineTo(fx + d, fy + d);
      ctx.moveTo(fx + d, fy - d);
      ctx.lineTo(fx - d, fy + d);
      ctx.stroke();
    }
    if (showNames) this.renderNames(ctx);
    this.renderMisplaced(ctx, showNames);
  }

  // Outlines always; the "... on the other map" notes with the names.
  renderMisplaced(ctx, showNames) {
    const { px } = this;
    const color = this.data.cells.misplaced_color;
    ctx.strokeStyle = color;
    ctx.lineWidth = 2.5;
    for (const m of this.data.views[this.view].misplaced) {
      for (const [box, dashed] of [[m.here, false], [m.there, true]]) {
        if (!box) continue;
        const [r0, r1, c0, c1] = box;
        ctx.setLineDash(dashed ? [5, 4] : []);
        ctx.strokeRect(c0 * px + 1, r0 * px + 1, (c1 - c0 + 1) * px - 2, (r1 - r0 + 1) * px - 2);
        if (dashed && showNames) {
          const text = `${m.name} on the ${m.other}`;
          const below = (r1 + 1) * px + 2;
          this.textBox(ctx, text, c0 * px, below + 12 > this.rows * px ? r0 * px - 14 : below, "left", color, SMALL_FONT);
        }
      }
    }
    ctx.setLineDash([]);
  }

  renderNames(ctx) {
    const font = this.px >= 8 ? NAME_FONT : SMALL_FONT;
    for (const [name, r, c] of this.data.views[this.view].labels) {
      this.textBox(ctx, name, (c + 0.5) * this.px, (r + 0.5) * this.px - 6, "center", "#0f172a", font);
    }
  }

  textBox(ctx, text, x, y, align, color, font) {
    ctx.font = font;
    ctx.textBaseline = "top";
    ctx.textAlign = align;
    const w = ctx.measureText(text).width;
    const left = align === "center" ? x - w / 2 : x;
    ctx.fillStyle = "rgba(255,255,255,0.8)";
    ctx.fillRect(left - 2, y - 1, w + 4, 13);
    ctx.fillStyle = color;
    ctx.fillText(text, x, y);
  }

  // mask: the canvas after this step (1 = drawn); added / removed: what this step changed.
  draw(mask, added, removed) {
    const cells = this.data.cells;
    const ctx = this.context(this.canvas);
    const w = this.cols * this.px;
    const h = this.rows * this.px;
    ctx.drawImage(this.base, 0, 0, w, h);
    const on = [];
    const off = [];
    for (let i = 0; i < mask.length; i++) {
      if (mask[i]) (this.showRoute && this.route[i] ? on : off).push(i);
    }
    this.fillCells(ctx, off, cells.colors[cells.codes.drawn]);
    this.fillCells(ctx, on, cells.colors[cells.codes.drawn_on_route]);
    this.fillCells(ctx, removed, cells.colors[cells.codes.erased]);
    this.fillCells(ctx, added, cells.colors[cells.codes.added]);
    ctx.drawImage(this.over, 0, 0, w, h);
  }
}

// The legend of the maps on show: every colour and mark that can appear on them.
function mapLegend(node, data, views, showRoute) {
  const c = data.cells;
  const k = c.codes;
  const routeShown = views.includes("guide") || showRoute;
  const finish = routeShown && data.finish !== null;
  const codes = [k.empty, k.landmark, k.blocked, ...(routeShown ? [k.route] : []), k.start, ...(finish ? [k.finish] : []),
    k.drawn, ...(routeShown ? [k.drawn_on_route] : []), k.added, k.erased];
  const keys = codes.map((code) => legendKey(swatch("", c.colors[code]), c.names[code]));
  keys.push(legendKey(glyph("○", MARK_COLOR), "start mark"));
  if (finish) keys.push(legendKey(glyph("✕", MARK_COLOR), "finish mark"));
  const misplaced = data.views.guide.misplaced.map((m) => m.name);
  if (misplaced.length) {
    keys.push(legendKey(swatch("rp-outline", c.misplaced_color, false), `${misplaced.join(", ")} (placed differently on the two maps): where this map has it`));
    keys.push(legendKey(swatch("rp-outline rp-dashed", c.misplaced_color, false), "where the other map has it"));
  }
  node.replaceChildren(...keys);
}
