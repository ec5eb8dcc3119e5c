// The tile player: one unit of any tile-grid domain (analysis/tile_replay.py's payload) lives here;
// stepping, playback, keys, the scrub bar and the report of the position are core.js's. This part
// keeps the tiles as they are at the current step (the changes applied forward, and undone
// backward, a step at a time), draws the grid, the caption, the panel and the messages, and saves
// the grid on show as a PNG. It reports the step only: {step}.

function capitalised(word) {
  return `${word[0].toUpperCase()}${word.slice(1)}`;
}

class TilePlayer extends PlayerCore {
  constructor(root, data, report) {
    super(root, data, report, data.steps.length);
    const { width } = data.grid;
    this.base = [];
    for (const row of data.grid.tiles) for (const letter of Array.from(row)) this.base.push([letter, ""]);
    this.cells = this.base.map((c) => c.slice());
    this.cellStep = -1;
    // What each step's changes replaced (to undo them going back), worked out once.
    this.undo = [];
    const sweep = this.base.map((c) => c.slice());
    for (const s of data.steps) {
      this.undo.push(s.changes.map(([r, c]) => [r * width + c, ...sweep[r * width + c]]));
      for (const [r, c, letter, note] of s.changes) sweep[r * width + c] = [letter, note];
    }
    this.setUpText();
    this.setUpJumps();
    this.setUpControls();
    this.grid = new TileGrid(this.q(".tp-grid"), data);
    this.timeline = new TileTimeline(this.q(".rp-timeline"), data, (t) => this.seek(t));
    tileLegend(this.q(".tp-legend"), data);
    tileTimelineLegend(this.q(".rp-tl-legend"), data);
    this.listen();
    this.layout(true);
  }

  // One jump button per kind of mark.
  setUpJumps() {
    const bar = this.q(".tp-jumps");
    bar.hidden = !this.data.mark_kinds.length;
    bar.append(...this.data.mark_kinds.map((k) => {
      const b = el("button", "rp-btn rp-jump", k.title);
      b.type = "button";
      b.dataset.jump = k.name;
      return b;
    }));
  }

  jumpName(kind) {
    const found = this.data.mark_kinds.find((k) => k.name === kind);
    return found ? found.title : kind;
  }

  action(b) {
    if (b.dataset.act === "png") this.savePng();
  }

  countText() {
    const noun = capitalised(this.data.step_noun);
    return this.n ? `${noun} ${this.data.steps[this.t].step} (${this.t + 1} of ${this.n})` : `No ${this.data.step_noun}s`;
  }

  placeName(t) {
    return `${capitalised(this.data.step_noun)} ${this.data.steps[t].step}`;
  }

  speedLabel(v) {
    return `${v} ${this.data.step_noun}s/s`;
  }

  // The tiles after step t.
  applyChanges(t) {
    const { width } = this.data.grid;
    while (this.cellStep < t) {
      const s = ++this.cellStep;
      for (const [r, c, letter, note] of this.data.steps[s].changes) this.cells[r * width + c] = [letter, note];
    }
    while (this.cellStep > t) {
      const s = this.cellStep--;
      const undo = this.undo[s];
      for (let k = undo.length - 1; k >= 0; k--) this.cells[undo[k][0]] = [undo[k][1], undo[k][2]];
    }
  }

  changed() {
    const out = [];
    for (let i = 0; i < this.cells.length; i++) {
      if (this.cells[i][0] !== this.base[i][0] || this.cells[i][1] !== this.base[i][1]) out.push(i);
    }
    return out;
  }

  // Size the grid to the space it has (cells of 24 to 96 pixels, the grid at most 400 high) and
  // the timeline to its width.
  layout(force = false) {
    const box = this.q(".tp-grid-col");
    const width = box.clientWidth;
    const { width: cols, height: rows } = this.data.grid;
    const px = Math.max(24, Math.min(96, Math.floor(Math.min(width / Math.max(cols, 1), 400 / Math.max(rows, 1)))));
    const timelineChanged = this.timeline.resize(this.q(".rp-timeline").clientWidth);
    if (!width || (!force && px === this.grid.px && !timelineChanged)) return;
    if (force || px !== this.grid.px) this.grid.configure(px);
    this.render(true);
  }

  // Draw step this.t everywhere, then mark the root (data-step) once it is drawn.
  render(redrawPanels) {
    const t = this.t;
    this.applyChanges(t);
    this.grid.draw(this.cells, this.changed(), t < 0 ? [] : this.data.steps[t].agents);
    this.timeline.draw(t);
    if (redrawPanels || this.shown !== t) {
      renderCaption(this.q(".tp-caption"), this.data, t);
      renderPanel(this.q(".tp-panel"), this.data, t);
      renderMessages(this.q(".tp-messages"), this.data, t);
      this.shown = t;
    }
    this.controls();
    this.root.dataset.step = String(t);
  }

  savePng() {
    const t = this.t;
    const caption = t < 0 ? this.data.unit : `${this.data.steps[t].caption} · ${this.data.unit}`;
    const step = t < 0 ? "" : this.data.steps[t].step;
    this.savePngOf([this.grid.canvas], caption, `${fileSafe(this.data.unit)}_step${step}.png`, 0);
  }
}

export default function mountTilePlayer(component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".tp-root");
  const player = new TilePlayer(root, data, (position) => setStateValue("position", position));
  return () => player.destroy();
}
