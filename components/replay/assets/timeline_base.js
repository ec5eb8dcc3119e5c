// What both players' timelines share: a canvas of a fixed height, as wide as its box, whose static
// layer (renderStatic) is drawn once per width into an offscreen canvas and copied under the
// current step's marks (drawStatic); a click or a drag seeks to the step under the pointer
// (stepAt: -1 for none), and the pointer over the canvas names that step (hover).

class TimelineCanvas {
  constructor(canvas, height, onSeek) {
    this.canvas = canvas;
    this.height = height;
    this.onSeek = onSeek;
    this.static = document.createElement("canvas");
    this.width = 0;
    this.dragging = false;
    canvas.addEventListener("pointerdown", (e) => {
      this.dragging = true;
      canvas.setPointerCapture(e.pointerId);
      this.seekAt(e);
    });
    canvas.addEventListener("pointermove", (e) => {
      if (this.dragging) this.seekAt(e);
      else this.hover(e);
    });
    const stop = () => { this.dragging = false; };
    canvas.addEventListener("pointerup", stop);
    canvas.addEventListener("pointercancel", stop);
  }

  resize(width) {
    if (!width || width === this.width) return false;
    this.width = width;
    this.dpr = window.devicePixelRatio || 1;
    for (const c of [this.canvas, this.static]) {
      c.width = Math.round(width * this.dpr);
      c.height = Math.round(this.height * this.dpr);
    }
    this.canvas.style.height = `${this.height}px`;
    this.renderStatic();
    return true;
  }

  context(canvas) {
    const ctx = canvas.getContext("2d");
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    return ctx;
  }

  // The visible canvas cleared to the static layer; its context, to draw the current step on.
  drawStatic() {
    const ctx = this.context(this.canvas);
    ctx.clearRect(0, 0, this.width, this.height);
    ctx.drawImage(this.static, 0, 0, this.width, this.height);
    return ctx;
  }

  point(e) {
    const rect = this.canvas.getBoundingClientRect();
    return [e.clientX - rect.left, e.clientY - rect.top];
  }

  seekAt(e) {
    const t = this.stepAt(...this.point(e));
    if (t >= 0) this.onSeek(t);
  }
}
