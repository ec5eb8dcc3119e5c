// The replay player: the whole session lives here, so stepping, playing, pausing, jumping and
// seeking never wait for the server. The position (step, map view, route overlay) is reported to
// the app only once the user stops: on pause, or 300 ms after the last key or click.

const SPEEDS = [0.5, 1, 2, 4, 8, 12, 20];
const DEFAULT_SPEED = 2;
const REPORT_AFTER_MS = 300;
const MAP_GAP = 12;

// Keys typed into a field or meant for a control outside the player are not ours.
const FOREIGN_TARGETS =
  "input, textarea, select, button, a[href], [contenteditable=''], [contenteditable='true'], [role=slider], " +
  "[role=listbox], [role=combobox], [role=option], [role=radio], [role=checkbox], [role=switch], [role=tab], [role=menuitem]";

class Player {
  constructor(root, data, report) {
    this.root = root;
    this.data = data;
    this.onReport = report;
    this.n = data.steps.n;
    const start = data.start || {};
    this.t = this.n ? Math.max(0, Math.min(this.n - 1, Number(start.step) || 0)) : -1;
    this.view = ["guide", "follower", "both"].includes(start.view) ? start.view : "guide";
    this.route = Boolean(start.route);
    this.names = true;
    this.mode = "uniform";
    this.speed = DEFAULT_SPEED;
    this.playing = false;
    this.timer = null;
    this.lastReported = JSON.stringify(this.position());
    this.mask = new Uint8Array(data.grid[0] * data.grid[1]);
    this.maskStep = -1;
    this.q = (sel) => root.querySelector(sel);
    this.setUpText();
    this.setUpControls();
    this.transcript = new Transcript(this.q(".rp-transcript"), data.steps, (t) => this.seek(t));
    this.timeline = new Timeline(this.q(".rp-timeline"), data, (t) => this.seek(t));
    timelineLegend(this.q(".rp-tl-legend"), data);
    this.onKey = (e) => this.key(e);
    window.addEventListener("keydown", this.onKey);
    this.resizeObserver = new ResizeObserver(() => this.layout());
    this.resizeObserver.observe(root);
    this.setView(this.view, false);
  }

  destroy() {
    this.pause(false);
    clearTimeout(this.timer);
    window.removeEventListener("keydown", this.onKey);
    this.resizeObserver.disconnect();
  }

  position() {
    return { step: Math.max(this.t, 0), view: this.view, route: this.route };
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
      else if (b.dataset.act === "play") this.toggle();
      else if (b.dataset.act === "png") this.savePng();
      else if (b.dataset.jump) this.seek(this.data.next[b.dataset.jump][this.t]);
      else if (b.dataset.view) this.setView(b.dataset.view, true);
    });
    const scrub = this.q(".rp-scrub");
    scrub.addEventListener("input", () => this.seek(Number(scrub.value)));
    const mode = this.q(".rp-mode");
    const speed = this.q(".rp-speed");
    mode.addEventListener("change", () => {
      this.mode = mode.value;
      this.speedOptions();
      this.reanchor();
      mode.blur();
    });
    speed.addEventListener("change", () => {
      this.speed = Number(speed.value);
      this.reanchor();
      speed.blur();
    });
    this.speedOptions();
    const route = this.q(".rp-route");
    route.checked = this.route;
    route.addEventListener("change", () => {
      this.route = route.checked;
      route.blur();
      this.layout(true);
      this.userMoved();
    });
    const names = this.q(".rp-names");
    names.addEventListener("change", () => {
      this.names = names.checked;
      names.blur();
      this.layout(true);
    });
  }

  speedOptions() {
    const select = this.q(".rp-speed");
    const unit = this.mode === "uniform" ? (v) => `${v} actions/s` : (v) => `${v}x`;
    select.replaceChildren(...SPEEDS.map((v) => {
      const o = el("option", "", unit(v));
      o.value = String(v);
      return o;
    }));
    select.value = String(this.speed);
  }

  setView(view, byUser) {
    this.view = view;
    this.root.dataset.view = view;
    for (const b of this.root.querySelectorAll("[data-view]")) {
      if (b.tagName === "BUTTON") b.setAttribute("aria-pressed", String(b.dataset.view === view));
    }
    const views = view === "both" ? ["guide", "follower"] : [view];
    const box = this.q(".rp-maps");
    box.replaceChildren();
    this.maps = views.map((v) => new MapView(box, this.data, v));
    const main = this.q(".rp-main");
    main.classList.toggle("rp-both", view === "both");
    // Both maps take the full width: the current action goes above them, to stay in sight.
    if (view === "both") main.before(this.q(".rp-current"));
    else this.q(".rp-side").prepend(this.q(".rp-current"));
    this.q(".rp-route").disabled = view === "guide";
    this.layout(true);
    if (byUser) this.userMoved();
  }

  // Size the canvases to the space they have; redraw the static layers when that changed.
  layout(force = false) {
    const box = this.q(".rp-maps");
    const width = box.clientWidth;
    const [rows, cols] = this.data.grid;
    const k = this.maps.length;
    const w = (width - MAP_GAP * (k - 1)) / k;
    const maxH = k > 1 ? 400 : 440;
    const px = Math.max(2, Math.min(24, Math.floor(Math.min(w / cols, maxH / rows))));
    const key = `${px}|${this.route}|${this.names}|${this.view}`;
    const timelineChanged = this.timeline.resize(this.q(".rp-timeline").clientWidth);
    if (!width || (!force && key === this.layoutKey && !timelineChanged)) return;
    if (force || key !== this.layoutKey) {
      this.layoutKey = key;
      for (const m of this.maps) m.configure(px, this.route, this.names);
      mapLegend(this.q(".rp-legend"), this.data, this.maps.map((m) => m.view), this.route);
    }
    this.render(true);
  }

  applyMask(t) {
    const { added, removed } = this.data.steps;
    const mask = this.mask;
    while (this.maskStep < t) {
      const s = ++this.maskStep;
      for (const i of removed[s]) mask[i] = 0;
      for (const i of added[s]) mask[i] = 1;
    }
    while (this.maskStep > t) {
      const s = this.maskStep--;
      for (const i of added[s]) mask[i] = 0;
      for (const i of removed[s]) mask[i] = 1;
    }
  }

  // Draw step this.t everywhere, then mark the root (data-step) once it is drawn.
  render(redrawPanels) {
    const t = this.t;
    const s = this.data.steps;
    this.applyMask(t);
    const added = t >= 0 ? s.added[t] : [];
    const removed = t >= 0 ? s.removed[t] : [];
    for (const m of this.maps) m.draw(this.mask, added, removed);
    this.timeline.draw(t);
    if (redrawPanels || this.shown !== t) {
      this.transcript.show(t);
      renderCurrent(this.q(".rp-current"), this.data, t);
      renderMentalModel(this.q(".rp-mm"), this.data, t);
      renderAnchor(this.q(".rp-anchor"), this.data, t);
      this.shown = t;
    }
    this.controls();
    this.root.dataset.step = String(t);
  }

  controls() {
    const t = this.t;
    const n = this.n;
    this.q(".rp-count").textContent = n ? `Action ${t + 1} of ${n}` : "No actions";
    this.q(".rp-clock").textContent = n ? `· ${this.data.steps.time_label[t]} into the session` : "";
    this.q("[data-act=prev]").disabled = t <= 0;
    this.q("[data-act=next]").disabled = t >= n - 1;
    this.q("[data-act=play]").disabled = n < 2;
    this.q(".rp-play").textContent = this.playing ? "❚❚ Pause" : "▶︎ Play";
    this.root.dataset.playing = String(this.playing);
    this.q(".rp-scrub").value = String(Math.max(t, 0));
    for (const b of this.root.querySelectorAll("[data-jump]")) {
      const target = n ? this.data.next[b.dataset.jump][t] : -1;
      b.disabled = target < 0;
      b.title = target < 0 ? `No ${this.data.jump_names[b.dataset.jump]} after this one` : `Action ${target + 1}`;
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

  // Where playback is after `elapsed` seconds: uniform, `speed` actions a second; real time, the
  // session's own clock `speed` times faster. Never before where it already is.
  target(elapsed) {
    const { t, at } = this.anchor;
    const s = this.data.steps;
    let target;
    if (this.mode === "uniform") {
      target = t + Math.floor(elapsed * this.speed + 1e-9);
    } else {
      const clock = s.time[t] + elapsed * this.speed;
      let lo = t;
      let hi = this.n - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (s.time[mid] <= clock) lo = mid;
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

  // -- export -----------------------------------------------------------------------------------

  savePng() {
    const pad = 8;
    const head = 24;
    const dpr = window.devicePixelRatio || 1;
    const canvases = this.maps.map((m) => m.canvas);
    const width = canvases.reduce((w, c) => w + c.width, 0) + (canvases.length - 1) * MAP_GAP * dpr + 2 * pad * dpr;
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
    const s = this.data.steps;
    const t = this.t;
    const caption = t < 0 ? this.data.session : `${this.data.session} · action ${t + 1} of ${this.n} · ${s.time_label[t]} · ${s.role[t]} ${s.type[t]}`;
    ctx.fillText(caption, pad * dpr, pad * dpr);
    let x = pad * dpr;
    for (const c of canvases) {
      ctx.drawImage(c, x, (pad + head) * dpr);
      x += c.width + MAP_GAP * dpr;
    }
    const link = document.createElement("a");
    link.href = out.toDataURL("image/png");
    link.download = `${String(this.data.session).replace(/[^A-Za-z0-9_-]+/g, "_")}-${this.view}-action${t + 1}.png`;
    link.click();
  }
}

export default function mountReplayPlayer(component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".rp-root");
  const player = new Player(root, data, (position) => setStateValue("position", position));
  return () => player.destroy();
}
