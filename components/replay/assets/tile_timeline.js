// The tile player's timeline on a 2D canvas: one column per step; the first count series as bars
// (the payload's timeline), each kind of mark in a row of its own above them, in its colour and
// symbol, and the current step outlined in orange. A click or a drag seeks (timeline_base.js); the
// pointer over a step names it with its counts and marks.

const TT = { left: 132, right: 12, top: 6, row: 14, bars: 52, axis: 18 };
const TT_FONT = "11px system-ui, -apple-system, 'Segoe UI', sans-serif";
const TT_BAR = "#56B4E9";
const TT_CURRENT = "#f97316";

class TileTimeline extends TimelineCanvas {
  constructor(canvas, data, onSeek) {
    const marks = data.mark_kinds.length;
    super(canvas, TT.top + marks * TT.row + 6 + TT.bars + TT.axis, onSeek);
    this.data = data;
    this.n = data.steps.length;
    this.series = data.timeline.series;
    this.barsTop = TT.top + marks * TT.row + 6;
    this.barsBottom = this.barsTop + TT.bars;
    this.canvas.style.height = `${this.height}px`;
  }

  slot() {
    return (this.width - TT.left - TT.right) / Math.max(this.n, 1);
  }

  x(i) {
    return TT.left + (i + 0.5) * this.slot();
  }

  renderStatic() {
    const ctx = this.context(this.static);
    ctx.clearRect(0, 0, this.width, this.height);
    ctx.font = TT_FONT;
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    const slot = this.slot();
    const kinds = this.data.mark_kinds;
    kinds.forEach((k, row) => {
      const y = TT.top + row * TT.row + TT.row / 2;
      ctx.fillStyle = "#475569";
      ctx.fillText(k.title, TT.left - 8, y, TT.left - 12);
      const colour = this.data.palette.marks[k.fill] || "#334155";
      this.data.steps.forEach((s, i) => {
        if (s.marks.includes(k.name)) this.symbol(ctx, k.symbol, this.x(i), y, Math.min(4.5, Math.max(2, slot / 3)), colour);
      });
    });
    const bars = this.series[0];
    ctx.strokeStyle = "#e2e8f0";
    ctx.lineWidth = 1;
    ctx.strokeRect(TT.left, this.barsTop, this.width - TT.left - TT.right, TT.bars);
    if (bars) {
      const top = Math.max(1, ...bars.values);
      ctx.fillStyle = "#475569";
      ctx.fillText(bars.name, TT.left - 8, (this.barsTop + this.barsBottom) / 2, TT.left - 12);
      ctx.fillText(String(top), TT.left - 8, this.barsTop + 5);
      ctx.fillStyle = TT_BAR;
      const w = Math.max(1, slot * 0.7);
      bars.values.forEach((v, i) => {
        const h = (v / top) * (TT.bars - 4);
        if (h > 0) ctx.fillRect(this.x(i) - w / 2, this.barsBottom - h, w, h);
      });
    }
    this.renderAxis(ctx, slot);
  }

  // Step numbers under the columns, as many as fit.
  renderAxis(ctx, slot) {
    if (!this.n) return;
    const every = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].find((k) => k * slot >= 28) || 2000;
    ctx.fillStyle = "#64748b";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (let i = 0; i < this.n; i += every) ctx.fillText(String(this.data.steps[i].step), this.x(i), this.barsBottom + 4);
  }

  symbol(ctx, symbol, x, y, r, colour) {
    ctx.fillStyle = colour;
    ctx.strokeStyle = colour;
    ctx.beginPath();
    if (symbol === "square") ctx.rect(x - r, y - r, 2 * r, 2 * r);
    else if (symbol === "diamond") { ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y); ctx.closePath(); }
    else if (symbol === "triangle") { ctx.moveTo(x, y - r); ctx.lineTo(x + r, y + r); ctx.lineTo(x - r, y + r); ctx.closePath(); }
    else if (symbol === "x") {
      ctx.lineWidth = 2;
      ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r); ctx.moveTo(x + r, y - r); ctx.lineTo(x - r, y + r);
      ctx.stroke();
      return;
    } else ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fill();
  }

  draw(t) {
    if (!this.width) return;
    const ctx = this.drawStatic();
    if (t < 0) return;
    const slot = this.slot();
    ctx.strokeStyle = TT_CURRENT;
    ctx.lineWidth = 2;
    ctx.strokeRect(this.x(t) - Math.max(slot, 4) / 2, 1, Math.max(slot, 4), this.barsBottom + 2);
  }

  stepAt(px) {
    if (!this.n) return -1;
    return Math.max(0, Math.min(this.n - 1, Math.floor((px - TT.left) / this.slot())));
  }

  hover(e) {
    const t = this.stepAt(...this.point(e));
    if (t < 0) {
      this.canvas.title = "";
      return;
    }
    const s = this.data.steps[t];
    const counts = this.series.map((x) => `${x.name} ${x.values[t]}`);
    const marks = this.data.mark_kinds.filter((k) => s.marks.includes(k.name)).map((k) => k.title);
    const noun = this.data.step_noun;
    this.canvas.title = [`${noun[0].toUpperCase()}${noun.slice(1)} ${s.step}`, ...counts, ...marks].join(" · ");
  }
}

// The timeline's legend: the bars, each kind of mark, the current step.
function tileTimelineLegend(node, data) {
  const keys = [];
  if (data.timeline.series.length) keys.push(legendKey(swatch("", TT_BAR), `${data.timeline.series[0].name} per ${data.step_noun}`));
  for (const k of data.mark_kinds) {
    const g = { square: "■", diamond: "◆", triangle: "▲", x: "✕" }[k.symbol] || "●";
    keys.push(legendKey(glyph(g, data.palette.marks[k.fill] || "#334155"), k.title));
  }
  keys.push(legendKey(swatch("rp-outline", TT_CURRENT, false), `current ${data.step_noun}`));
  node.replaceChildren(...keys);
}
