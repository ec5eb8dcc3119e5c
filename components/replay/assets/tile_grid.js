// The tile player's grid on a 2D canvas. The static tiles (each filled with its kind's colour and
// labelled with its short name) are drawn once per cell size into an offscreen canvas; a step is
// that image, the tiles that differ from it at the step (with their notes: what lies on a counter,
// a pot's state) and the agents on top: a triangle pointing the way each faces (a disc when it
// faces no way), in its colour, named with what it holds.

const TILE_FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";
const TILE_LINE = "#888888";
const TILE_TEXT = "#333333";
const FACING_VECTORS = { north: [0, -1], south: [0, 1], east: [1, 0], west: [-1, 0] };

class TileGrid {
  constructor(canvas, data) {
    this.canvas = canvas;
    this.data = data;
    this.rows = data.grid.height;
    this.cols = data.grid.width;
    this.kinds = Object.fromEntries(data.grid.legend.map((k) => [k.letter, k]));
    this.base = document.createElement("canvas");
    this.px = 0;
  }

  configure(px) {
    const dpr = window.devicePixelRatio || 1;
    this.px = px;
    this.dpr = dpr;
    const w = this.cols * px;
    const h = this.rows * px;
    for (const c of [this.canvas, this.base]) {
      c.width = Math.max(1, Math.round(w * dpr));
      c.height = Math.max(1, Math.round(h * dpr));
    }
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${h}px`;
    this.canvas.dataset.cellPx = String(px);
    const ctx = this.context(this.base);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, w, h);
    this.data.grid.tiles.forEach((row, r) => Array.from(row).forEach((letter, c) => this.drawTile(ctx, r, c, letter, "")));
  }

  context(canvas) {
    const ctx = canvas.getContext("2d");
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    return ctx;
  }

  fill(name) {
    return this.data.palette.tiles[name] || "#ffffff";
  }

  font(size, weight = "") {
    return `${weight} ${Math.round(size)}px ${TILE_FONT}`.trim();
  }

  drawTile(ctx, r, c, letter, note) {
    const px = this.px;
    const kind = this.kinds[letter];
    const x = c * px;
    const y = r * px;
    ctx.fillStyle = this.fill(kind ? kind.fill : "white");
    ctx.fillRect(x, y, px, px);
    ctx.strokeStyle = TILE_LINE;
    ctx.lineWidth = 1;
    ctx.strokeRect(x + 0.5, y + 0.5, px - 1, px - 1);
    const label = kind ? kind.label : letter;
    const size = Math.max(8, Math.min(13, px / 6));
    ctx.fillStyle = TILE_TEXT;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    if (label) {
      ctx.font = this.font(size);
      ctx.fillText(label, x + px / 2, y + px / 2 - (note ? size * 0.6 : 0), px - 4);
    }
    if (note) {
      ctx.font = this.font(size, "600");
      ctx.fillText(note, x + px / 2, y + px / 2 + (label ? size * 0.7 : 0), px - 4);
    }
  }

  drawAgent(ctx, agent, at) {
    const [r, c, facing, holding] = at;
    const px = this.px;
    const cx = (c + 0.5) * px;
    const cy = (r + 0.5) * px - px / 10;
    const h = px / 4;
    ctx.fillStyle = this.data.palette.agents[agent.colour % this.data.palette.agents.length];
    ctx.beginPath();
    const v = FACING_VECTORS[facing];
    if (v) {
      const [dx, dy] = v;
      ctx.moveTo(cx + dx * h, cy + dy * h);
      ctx.lineTo(cx - dx * h + dy * h * 0.8, cy - dy * h + dx * h * 0.8);
      ctx.lineTo(cx - dx * h - dy * h * 0.8, cy - dy * h - dx * h * 0.8);
      ctx.closePath();
    } else {
      ctx.arc(cx, cy, h * 0.8, 0, 2 * Math.PI);
    }
    ctx.fill();
    const size = Math.max(8, Math.min(12, px / 7));
    const text = holding ? `${agent.name} (${holding})` : agent.name;
    ctx.font = this.font(size);
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    const w = Math.min(ctx.measureText(text).width, px - 2);
    const ty = (r + 1) * px - size * 0.8;
    ctx.fillStyle = "rgba(255,255,255,0.85)";
    ctx.fillRect(cx - w / 2 - 2, ty - size * 0.65, w + 4, size * 1.3);
    ctx.fillStyle = "#111111";
    ctx.fillText(text, cx, ty, px - 2);
  }

  // cells: [letter, note] per cell, row by row; changed: the cells that differ from the static
  // tiles; agents: each agent's [row, col, facing, holding], or null.
  draw(cells, changed, agents) {
    if (!this.px) return;
    const ctx = this.context(this.canvas);
    ctx.drawImage(this.base, 0, 0, this.cols * this.px, this.rows * this.px);
    for (const i of changed) {
      const r = Math.floor(i / this.cols);
      this.drawTile(ctx, r, i - r * this.cols, cells[i][0], cells[i][1]);
    }
    this.data.agents.forEach((agent, k) => {
      if (agents[k]) this.drawAgent(ctx, agent, agents[k]);
    });
  }
}

// The legend of the grid: every kind of tile, then every agent in its colour.
function tileLegend(node, data) {
  const keys = data.grid.legend.map((k) => legendKey(swatch("", data.palette.tiles[k.fill] || "#ffffff"), k.name));
  data.agents.forEach((a) => {
    keys.push(legendKey(glyph("▲", data.palette.agents[a.colour % data.palette.agents.length]), a.name));
  });
  node.replaceChildren(...keys);
}
