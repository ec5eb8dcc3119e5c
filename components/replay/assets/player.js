// The Map Task replay player: the whole session lives here (stepping, playback, keys, the scrub bar
// and the report of the position are core.js's); this part draws the maps, the transcript and the
// panels, and adds the map view and the route overlay to the position it reports (step, map
// view, route overlay).

const MAP_GAP = 12;

class Player extends PlayerCore {
  constructor(root, data, report) {
    super(root, data, report, data.steps.n);
    const start = data.start || {};
    this.view = ["guide", "follower", "both"].includes(start.view) ? start.view : "guide";
    this.route = Boolean(start.route);
    this.names = true;
    this.mask = new Uint8Array(data.grid[0] * data.grid[1]);
    this.maskStep = -1;
    this.setUpText();
    this.setUpControls();
    this.transcript = new Transcript(this.q(".rp-transcript"), data.steps, (t) => this.seek(t));
    this.timeline = new Timeline(this.q(".rp-timeline"), data, (t) => this.seek(t));
    timelineLegend(this.q(".rp-tl-legend"), data);
    this.listen();
    this.setView(this.view, false);
  }

  position() {
    return { step: Math.max(this.t, 0), view: this.view, route: this.route };
  }

  setUpControls() {
    super.setUpControls();
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

  action(b) {
    if (b.dataset.act === "png") this.savePng();
    else if (b.dataset.view) this.setView(b.dataset.view, true);
  }

  speedLabel(v) {
    return this.mode === "uniform" ? `${v} actions/s` : `${v}x`;
  }

  countText() {
    return this.n ? `Action ${this.t + 1} of ${this.n}` : "No actions";
  }

  clockText() {
    return this.n ? `· ${this.data.steps.time_label[this.t]} into the session` : "";
  }

  placeName(t) {
    return `Action ${t + 1}`;
  }

  times() {
    return this.data.steps.time;
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

  // -- export -----------------------------------------------------------------------------------

  savePng() {
    const s = this.data.steps;
    const t = this.t;
    const caption = t < 0 ? this.data.session : `${this.data.session} · action ${t + 1} of ${this.n} · ${s.time_label[t]} · ${s.role[t]} ${s.type[t]}`;
    const name = `${fileSafe(this.data.session)}-${this.view}-action${t + 1}.png`;
    this.savePngOf(this.maps.map((m) => m.canvas), caption, name, MAP_GAP);
  }
}

export default function mountReplayPlayer(component) {
  const { data, parentElement, setStateValue } = component;
  const root = parentElement.querySelector(".rp-root");
  const player = new Player(root, data, (position) => setStateValue("position", position));
  return () => player.destroy();
}
