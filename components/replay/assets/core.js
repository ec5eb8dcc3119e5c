// The stepping both replay players share: the whole unit lives in the browser, so stepping,
// playing, pausing, jumping and seeking never wait for the server. The keys (left and right arrows
// a step, Home and End the first and the last, space to play or pause), playback on the clock, the
// scrub bar, the Prev / Play / Next (and First / Last) buttons, the jumps to the next step of a
// kind (the payload's `next` lookups), and the report of the position to the app, only once the
// user stops: on pause, or 300 ms after the last key or click.
//
// A player extends PlayerCore with what it draws: render(redrawPanels) draws step this.t and then
// sets the root's data-step; layout() sizes what it draws to its box; position() is what it
// reports; countText(), clockText(), placeName(t), jumpName(kind) and speedLabel(v) say where it
// is in its own words; action(button) handles its own buttons.

const SPEEDS = [0.5, 1, 2, 4, 8, 12, 20];
const DEFAULT_SPEED = 2;
const REPORT_AFTER_MS = 300;

// Keys typed into a field or meant for a control outside the player are not ours.
const FOREIGN_TARGETS =
  "input, textarea, select, button, a[href], [contenteditable=''], [contenteditable='true'], [role=slider], " +
  "[role=listbox], [role=combobox], [role=option], [role=radio], [role=checkbox], [role=switch], [role=tab], [role=menuitem]";

class PlayerCore {
  constructor(root, data, report, n) {
    this.root = root;
    this.data = data;
    this.onReport = report;
    this.n = n;
    const start = data.start || {};
    this.t = n ? Math.max(0, Math.min(n - 1, Number(start.step) || 0)) : -1;
    this.mode = "uniform";
    this.speed = DEFAULT_SPEED;
    this.playing = false;
    this.timer = null;
    this.q = (sel) => root.querySelector(sel);
  }

  // Once the player's own parts are made: the keys and the box's size are listened to.
  listen() {
    this.lastReported = JSON.stringify(this.position());
    this.onKey = (e) => this.key(e);
    window.addEventListener("keydown", this.onKey);
    this.resizeObserver = new ResizeObserver(() => this.layout());
    this.resizeObserver.observe(this.root);
  }

  destroy() {
    this.pause(false);
    clearTimeout(this.timer);
    window.removeEventListener("keydown", this.onKey);
    if (this.resizeObserver) this.resizeObserver.disconnect();
  }

  position() {
    return { step: Math.max(this.t, 0) };
  }

  setUpText() {
    const { title, note } = this.data;
    for (const [sel, text] of [[".rp-title", title], [".rp-note", note]]) {
      const node = this.q(sel);
      node.textContent = text || "";
      node.hidden = !text;
    }
    this.q(".rp-scrub").max = String(Math.max(this.n - 1, 0));
  }

  setUpControls() {
    const root = this.root;
    // Clicking a control must not take the keyboard focus (arrows and space stay the player's).
    root.addEventListener("mousedown", (e) => {
      if (e.target.closest("button")) e.preventDefault();
    });
    root.addEventListener("click", (e) => {
      const b = e.target.closest("button");
      if (!b || b.disabled) return;
      if (b.dataset.act === "prev") this.step(-1);
      else if (b.dataset.act === "next") this.step(1);
      else if (b.dataset.act === "first") this.seek(0);
      else if (b.dataset.act === "last") this.seek(this.n - 1);
      else if (b.dataset.act === "play") this.toggle();
      else if (b.dataset.jump) this.seek(this.data.next[b.dataset.jump][this.t]);
      else this.action(b);
    });
    const scrub = this.q(".rp-scrub");
    scrub.addEventListener("input", () => this.seek(Number(scrub.value)));
    const mode = this.q(".rp-mode");
    const speed = this.q(".rp-speed");
    if (mode) {
      mode.addEventListener("change", () => {
        this.mode = mode.value;
        this.speedOptions();
        this.reanchor();
        mode.blur();
      });
    }
    speed.addEventListener("change", () => {
      this.speed = Number(speed.value);
      this.reanchor();
      speed.blur();
    });
    this.speedOptions();
  }

  // A button of the player's own (not a step, play or jump button).
  action(button) {}

  speedLabel(v) {
    return `${v} steps/s`;
  }

  speedOptions() {
    const select = this.q(".rp-speed");
    select.replaceChildren(...SPEEDS.map((v) => {
      const o = el("option", "", this.speedLabel(v));
      o.value = String(v);
      return o;
    }));
    select.value = String(this.speed);
  }

  countText() {
    return this.n ? `Step ${this.t + 1} of ${this.n}` : "No steps";
  }

  clockText() {
    return "";
  }

  placeName(t) {
    return `Step ${t + 1}`;
  }

  // What a jump button's kind is called ("No checkpoint after this one").
  jumpName(kind) {
    return this.data.jump_names[kind];
  }

  // The controls as they are at this.t: counts, what is disabled, the play button, the scrub bar.
  controls() {
    const t = this.t;
    const n = this.n;
    this.q(".rp-count").textContent = this.countText();
    const clock = this.q(".rp-clock");
    if (clock) clock.textContent = this.clockText();
    for (const [act, off] of [["prev", t <= 0], ["first", t <= 0], ["next", t >= n - 1], ["last", t >= n - 1]]) {
      const b = this.q(`[data-act=${act}]`);
      if (b) b.disabled = off;
    }
    this.q("[data-act=play]").disabled = n < 2;
    this.q(".rp-play").textContent = this.playing ? "❚❚ Pause" : "▶︎ Play";
    this.root.dataset.playing = String(this.playing);
    this.q(".rp-scrub").value = String(Math.max(t, 0));
    for (const b of this.root.querySelectorAll("[data-jump]")) {
      const target = n ? this.data.next[b.dataset.jump][t] : -1;
      b.disabled = target < 0;
      b.title = target < 0 ? `No ${this.jumpName(b.dataset.jump)} after this one` : this.placeName(target);
    }
  }

  // -- moving -----------------------------------------------------------------------------------

  go(t) {
    if (!this.n) return;
    t = Math.max(0, Math.min(this.n - 1, Math.round(t)));
    if (t === this.t) return;
    this.t = t;
    this.render(false);
  }

  seek(t) {
    if (t === undefined || t === null || t < 0) return;
    this.go(t);
    this.reanchor();
    this.userMoved();
  }

  step(delta) {
    this.seek(this.t + delta);
  }

  userMoved() {
    clearTimeout(this.timer);
    if (!this.playing) this.timer = setTimeout(() => this.report(), REPORT_AFTER_MS);
  }

  report() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.playing) return;
    const pos = this.position();
    const key = JSON.stringify(pos);
    if (key === this.lastReported) return;
    this.lastReported = key;
    this.onReport(pos);
  }

  // -- playback ---------------------------------------------------------------------------------

  toggle() {
    if (this.playing) this.pause(true);
    else this.play();
  }

  play() {
    if (this.n < 2) return;
    if (this.t >= this.n - 1) this.go(0);
    this.playing = true;
    this.reanchor();
    this.controls();
    this.raf = requestAnimationFrame((now) => this.tick(now));
  }

  pause(report) {
    if (!this.playing) return;
    this.playing = false;
    cancelAnimationFrame(this.raf);
    this.controls();
    if (report) this.report();
  }

  reanchor() {
    this.anchor = { t: Math.max(this.t, 0), at: performance.now() };
  }

  // Each step's time in seconds, for playback in real time (null: steps only play uniformly).
  times() {
    return null;
  }

  // Where playback is after `elapsed` seconds: uniform, `speed` steps a second; real time, the
  // unit's own clock `speed` times faster. Never before where it already is.
  target(elapsed) {
    const { t, at } = this.anchor;
    const time = this.mode === "uniform" ? null : this.times();
    let target;
    if (!time) {
      target = t + Math.floor(elapsed * this.speed + 1e-9);
    } else {
      const clock = time[t] + elapsed * this.speed;
      let lo = t;
      let hi = this.n - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (time[mid] <= clock) lo = mid;
        else hi = mid - 1;
      }
      target = lo;
    }
    return Math.min(this.n - 1, Math.max(this.t, target));
  }

  tick(now) {
    if (!this.playing) return;
    const elapsed = Math.max(0, (now - this.anchor.at) / 1000);
    this.go(this.target(elapsed));
    if (this.t >= this.n - 1) this.pause(true);
    else this.raf = requestAnimationFrame((next) => this.tick(next));
  }

  // -- keys -------------------------------------------------------------------------------------

  ownsKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const target = e.composedPath()[0];
    if (!(target instanceof Element)) return true;
    if (this.root.contains(target)) return !["INPUT", "SELECT"].includes(target.tagName) || target.type === "range";
    return !target.closest(FOREIGN_TARGETS);
  }

  key(e) {
    if (!["ArrowLeft", "ArrowRight", " ", "Home", "End"].includes(e.key) || !this.ownsKey(e)) return;
    e.preventDefault();
    if (e.key === " ") {
      if (!e.repeat) this.toggle();
    } else if (e.key === "Home" || e.key === "End") {
      this.seek(e.key === "End" ? this.n - 1 : 0);
    } else {
      this.step(e.key === "ArrowRight" ? 1 : -1);
    }
  }

  // A canvas (or several, side by side) as a PNG file, with a caption line above.
  savePngOf(canvases, caption, fileName, gap) {
    const pad = 8;
    const head = 24;
    const dpr = window.devicePixelRatio || 1;
    const width = canvases.reduce((w, c) => w + c.width, 0) + (canvases.length - 1) * gap * dpr + 2 * pad * dpr;
    const height = Math.max(...canvases.map((c) => c.height)) + (2 * pad + head) * dpr;
    const out = document.createElement("canvas");
    out.width = width;
    out.height = height;
    const ctx = out.getContext("2d");
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, width, height);
    ctx.fillStyle = "#0f172a";
    ctx.font = `${14 * dpr}px system-ui, sans-serif`;
    ctx.textBaseline = "top";
    ctx.fillText(caption, pad * dpr, pad * dpr);
    let x = pad * dpr;
    for (const c of canvases) {
      ctx.drawImage(c, x, (pad + head) * dpr);
      x += c.width + gap * dpr;
    }
    const link = document.createElement("a");
    link.href = out.toDataURL("image/png");
    link.download = fileName;
    link.click();
  }
}

// A name made safe for a file: letters, digits, "_" and "-" kept, anything else "_".
function fileSafe(text) {
  return String(text).replace(/[^A-Za-z0-9_-]+/g, "_");
}
