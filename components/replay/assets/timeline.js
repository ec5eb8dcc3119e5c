// The session's timeline on a 2D canvas: one marker per action in the row of its actor (shape:
// action type; colour: the actor's alignment), checkpoints as dotted lines, route coverage below,
// and the current action as an orange line. A click or a drag seeks (timeline_base.js).

const TL_HEIGHT = 150;
const TL = { left: 70, right: 14, top: 16, guide: 34, follower: 58, covTop: 78, covBottom: 122 };
const ALIGN_COLORS = { aligned: "#16a34a", "not aligned": "#e11d48", "no label": "#94a3b8" };
const TYPE_GLYPHS = { message: "●", draw: "■", erase: "✕", undo: "◀", reset: "◆" };
const CHECKPOINT_COLOR = "#7c3aed";
const NO_CHANGE_COLOR = "#b45309";
const COVERAGE_COLOR = "#0f766e";
const CURRENT_COLOR = "#f97316";
const AXIS_FONT = "11px system-ui, -apple-system, 'Segoe UI', sans-serif";

function clockLabel(seconds) {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function alignment(aligned) {
  return aligned === true ? "aligned" : aligned === false ? "not aligned" : "no label";
}

class Timeline extends TimelineCanvas {
  constructor(canvas, data, onSeek) {
    super(canvas, TL_HEIGHT, onSeek);
    this.data = data;
    const s = data.steps;
    this.end = Math.max(s.n ? s.time[s.n - 1] : 0, data.duration || 0, 1);
    this.byRole = { guide: [], follower: [] };
    for (let t = 0; t < s.n; t++) (this.byRole[s.role[t]] || this.byRole.follower).push(t);
  }

  x(time) {
    return TL.left + (time / this.end) * (this.width - TL.left - TL.right);
  }

  covY(v) {
    return TL.covBottom - v * (TL.covBottom - TL.covTop);
  }

  renderStatic() {
    const ctx = this.context(this.static);
    const s = this.data.steps;
    ctx.clearRect(0, 0, this.width, TL_HEIGHT);
    ctx.font = AXIS_FONT;
    ctx.textBaseline = "middle";
    ctx.textAlign = "right";
    ctx.strokeStyle = "#e2e8f0";
    ctx.lineWidth = 1;
    for (const role of ["guide", "follower"]) {
      ctx.fillStyle = role === "guide" ? "#1d4ed8" : "#047857";
      ctx.fillText(role, TL.left - 8, TL[role]);
      ctx.beginPath();
      ctx.moveTo(TL.left, TL[role]);
      ctx.lineTo(this.width - TL.right, TL[role]);
      ctx.stroke();
    }
    ctx.fillStyle = "#475569";
    ctx.fillText("coverage", TL.left - 8, (TL.covTop + TL.covBottom) / 2);
    ctx.strokeRect(TL.left, TL.covTop, this.width - TL.left - TL.right, TL.covBottom - TL.covTop);
    ctx.fillText("100%", TL.left - 8, TL.covTop + 4);
    ctx.fillText("0%", TL.left - 8, TL.covBottom - 4);
    this.renderAxis(ctx);
    this.renderCheckpoints(ctx);
    this.renderCoverage(ctx);
    const noChange = s.no_change || [];
    for (let t = 0; t < s.n; t++) {
      const x = this.x(s.time[t]);
      const y = TL[s.role[t]] || TL.follower;
      this.marker(ctx, s.type[t], x, y, ALIGN_COLORS[alignment(s.aligned[t])]);
      if (noChange[t]) this.noChangeMark(ctx, x, y);
    }
  }

  // An action with no cell change: a dashed box around its marker.
  noChangeMark(ctx, x, y) {
    const r = 7.5;
    ctx.save();
    ctx.strokeStyle = NO_CHANGE_COLOR;
    ctx.lineWidth = 1.5;
    ctx.setLineDash([2, 2]);
    ctx.strokeRect(x - r, y - r, 2 * r, 2 * r);
    ctx.restore();
  }

  renderAxis(ctx) {
    const span = this.end;
    const steps = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
    const every = steps.find((v) => span / v <= 10) || 7200;
    ctx.fillStyle = "#64748b";
    ctx.textAlign = "center";
    ctx.textBaseline = "top";
    for (let v = 0; v <= span + 1e-9; v += every) ctx.fillText(clockLabel(v), this.x(v), TL.covBottom + 6);
  }

  renderCheckpoints(ctx) {
    ctx.save();
    ctx.strokeStyle = CHECKPOINT_COLOR;
    ctx.fillStyle = CHECKPOINT_COLOR;
    ctx.setLineDash([2, 3]);
    ctx.textAlign = "left";
    ctx.textBaseline = "bottom";
    ctx.font = "10px system-ui, sans-serif";
    const s = this.data.steps;
    for (const cp of this.data.checkpoints) {
      const x = this.x(s.time[cp.pos]);
      ctx.beginPath();
      ctx.moveTo(x, TL.top);
      ctx.lineTo(x, TL.covBottom);
      ctx.stroke();
      // The Guide's labels above the rows, the Follower's above the coverage band.
      ctx.fillText(`${cp.role[0].toUpperCase()}${cp.number}`, x + 2, cp.role === "guide" ? TL.top + 2 : TL.covTop - 1);
    }
    ctx.restore();
  }

  renderCoverage(ctx) {
    const s = this.data.steps;
    ctx.strokeStyle = COVERAGE_COLOR;
    ctx.lineWidth = 2;
    ctx.beginPath();
    let prev = null;
    for (let t = 0; t < s.n; t++) {
      const v = s.coverage[t];
      if (v === null) continue;
      const x = this.x(s.time[t]);
      if (prev === null) ctx.moveTo(x, this.covY(v));
      else ctx.lineTo(x, this.covY(prev));
      ctx.lineTo(x, this.covY(v));
      prev = v;
    }
    if (prev !== null) ctx.lineTo(this.x(this.end), this.covY(prev));
    ctx.stroke();
  }

  marker(ctx, type, x, y, color) {
    const r = 4.5;
    ctx.fillStyle = color;
    ctx.strokeStyle = "#334155";
    ctx.lineWidth = 0.6;
    ctx.beginPath();
    if (type === "message") ctx.arc(x, y, r, 0, 2 * Math.PI);
    else if (type === "draw") ctx.rect(x - r, y - r, 2 * r, 2 * r);
    else if (type === "undo") { ctx.moveTo(x - r, y); ctx.lineTo(x + r, y - r); ctx.lineTo(x + r, y + r); ctx.closePath(); }
    else if (type === "reset") { ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y); ctx.closePath(); }
    else {
      ctx.strokeStyle = color;
      ctx.lineWidth = 2.5;
      ctx.moveTo(x - r, y - r); ctx.lineTo(x + r, y + r); ctx.moveTo(x + r, y - r); ctx.lineTo(x - r, y + r);
      ctx.stroke();
      return;
    }
    ctx.fill();
    ctx.stroke();
  }

  draw(t) {
    if (!this.width) return;
    const ctx = this.drawStatic();
    if (t < 0) return;
    const s = this.data.steps;
    const x = this.x(s.time[t]);
    ctx.strokeStyle = CURRENT_COLOR;
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x, TL.top - 6);
    ctx.lineTo(x, TL.covBottom);
    ctx.stroke();
    ctx.beginPath();
    ctx.arc(x, TL[s.role[t]] || TL.follower, 7.5, 0, 2 * Math.PI);
    ctx.stroke();
  }

  // The action nearest to a point: in the actor's row when the point is on one, else any.
  stepAt(px, py) {
    const s = this.data.steps;
    if (!s.n) return -1;
    const time = ((px - TL.left) / (this.width - TL.left - TL.right)) * this.end;
    const role = Math.abs(py - TL.guide) <= 11 ? "guide" : Math.abs(py - TL.follower) <= 11 ? "follower" : null;
    const pool = role && this.byRole[role].length ? this.byRole[role] : null;
    let lo = 0;
    let hi = (pool ? pool.length : s.n) - 1;
    const at = (i) => s.time[pool ? pool[i] : i];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (at(mid) < time) lo = mid + 1;
      else hi = mid;
    }
    let best = lo;
    if (lo > 0 && Math.abs(at(lo - 1) - time) <= Math.abs(at(lo) - time)) best = lo - 1;
    return pool ? pool[best] : best;
  }

  hover(e) {
    const t = this.stepAt(...this.point(e));
    const s = this.data.steps;
    const reason = t < 0 ? null : (s.no_change || [])[t];
    const flag = reason ? ` · no cell change: ${reason}` : "";
    this.canvas.title = t < 0 ? "" : `Action ${t + 1} · ${s.time_label[t]} · ${s.role[t]} ${s.type[t]} · ${alignment(s.aligned[t])}${flag}`;
  }
}

function timelineLegend(node, data) {
  const keys = Object.entries(TYPE_GLYPHS).map(([type, g]) => legendKey(glyph(g, "#334155"), type));
  for (const [name, color] of Object.entries(ALIGN_COLORS)) keys.push(legendKey(swatch("", color), name));
  keys.push(legendKey(swatch("rp-line rp-dotted", CHECKPOINT_COLOR, false), "checkpoint (G1: the Guide's first, F1: the Follower's first)"));
  if ((data.steps.no_change || []).some(Boolean)) {
    keys.push(legendKey(swatch("rp-outline rp-dashed", NO_CHANGE_COLOR, false), "no cell change (kept for its annotation)"));
  }
  keys.push(legendKey(swatch("rp-line", COVERAGE_COLOR, false), "route coverage"));
  keys.push(legendKey(swatch("rp-line", CURRENT_COLOR, false), "current action"));
  node.replaceChildren(...keys);
}
