// The replay player's text panels: transcript, current action, mental model and memory anchor
// (their elements and the legends' keys: dom.js). Everything that came from the dataset is set
// with textContent, never as markup.

const ROLE_TITLES = { guide: "Guide", follower: "Follower" };

function pct(v) {
  return v === null || v === undefined ? null : `${Math.round(v * 100)}%`;
}

function roleSpan(role) {
  return el("span", `rp-role-${role === "guide" ? "guide" : "follower"}`, role);
}

class Transcript {
  constructor(box, steps, onPick) {
    this.box = box;
    this.rows = [];
    this.current = -1;
    const frag = document.createDocumentFragment();
    const noChange = steps.no_change || [];
    for (let t = 0; t < steps.n; t++) {
      const row = el("div", steps.aligned[t] === false ? "rp-row rp-na" : "rp-row");
      row.dataset.pos = String(t);
      // An action with no cell change is flagged, with its reason on hover.
      if (noChange[t]) {
        row.classList.add("rp-nochange");
        row.title = `No cell change: ${noChange[t]}`;
      }
      row.append(el("span", "rp-time", steps.time_label[t]));
      const who = roleSpan(steps.role[t]);
      who.classList.add("rp-who");
      row.append(who);
      if (steps.type[t] === "message") {
        row.append(el("span", "rp-text", steps.text[t]));
      } else {
        row.append(el("span", "rp-text rp-act", `${steps.icon[t]} ${steps.text[t]}`));
      }
      this.rows.push(row);
      frag.append(row);
    }
    box.replaceChildren(frag);
    box.addEventListener("click", (e) => {
      const row = e.target.closest(".rp-row");
      if (row) onPick(Number(row.dataset.pos));
    });
  }

  show(t) {
    if (this.current === t) return;
    if (this.rows[this.current]) this.rows[this.current].classList.remove("rp-cur");
    this.current = t;
    const row = this.rows[t];
    if (!row) return;
    row.classList.add("rp-cur");
    // Scroll the box, not the page, so the row sits a third of the way down.
    this.box.scrollTop = Math.max(0, row.offsetTop - this.box.clientHeight / 3);
  }
}

function renderCurrent(node, data, t) {
  const s = data.steps;
  if (t < 0) {
    node.replaceChildren(el("div", "rp-meta", "This session has no actions: only the map is shown."));
    return;
  }
  const meta = el("div", "rp-meta");
  meta.append(`Action ${t + 1} · ${s.time_label[t]} · `, roleSpan(s.role[t]), ` · ${s.type[t]} · index ${s.index[t]} in the data`);
  const body = el("div", "rp-body");
  if (s.type[t] === "message") {
    body.append(el("blockquote", "", s.text[t]));
  } else {
    const cov = pct(s.coverage[t]);
    const coverage = cov === null ? `route coverage undefined (${data.coverage_undefined || "no route"})` : `route coverage ${cov}`;
    body.append(el("span", "rp-act", `${s.icon[t]} ${s.text[t]}`), `; ${plural(s.n_drawn[t], "cell")} on the canvas; ${coverage}.`);
  }
  const reason = (s.no_change || [])[t];
  if (reason) {
    // Flagged: the action is kept for its annotation; the canvas does not change with it.
    const flag = el("div", "rp-flag");
    flag.append(el("b", "", "No cell change"), `: ${reason}. The canvas stays as it was; the annotation is the actor's.`);
    node.replaceChildren(meta, body, flag);
    return;
  }
  node.replaceChildren(meta, body);
}

function labelLine(title, code, text) {
  const p = el("p");
  p.append(el("span", "rp-dim", `${title}: `), el("span", "rp-code", code), text);
  return p;
}

function renderMentalModel(node, data, t) {
  if (t < 0) {
    node.replaceChildren();
    return;
  }
  const role = data.steps.role[t];
  const head = el("p", "rp-head");
  head.append("Mental model of the ", roleSpan(role), " at this action");
  const ref = data.steps.mm[t];
  if (ref === null || ref === undefined) {
    node.replaceChildren(head, el("p", "rp-muted", "No annotation for this action."));
    return;
  }
  const mm = data.mental_models[ref];
  const lines = mm.labels.map(([title, code, text]) => labelLine(title, code, text));
  const same = el("p");
  same.append(el("span", "rp-dim", "On the same page: "));
  if (mm.aligned) {
    same.append(el("span", "rp-yes", "yes"));
  } else {
    same.append(el("span", "rp-no", "no"));
    const reasons = mm.reasons.length ? mm.reasons.map(([code, text]) => `${code} ${text}`).join("; ") : "no reason given";
    same.append(` (${reasons})`);
  }
  lines.push(same);
  if (mm.rationale) {
    const why = el("p");
    why.append(el("span", "rp-dim", "Rationale: "), el("i", "", mm.rationale));
    lines.push(why);
  }
  node.replaceChildren(head, ...lines);
}

function renderAnchor(details, data, t) {
  const summary = details.querySelector("summary");
  const body = details.querySelector(".rp-anchor-body");
  const k = t < 0 ? null : data.steps.anchor[t];
  if (k === null || k === undefined) {
    summary.textContent = "Memory anchor";
    body.replaceChildren(el("p", "rp-muted", "No in-session checkpoint responses in this session."));
    return;
  }
  const cp = data.checkpoints[k];
  const d = cp.pos - t;
  const where = d === 0 ? "this action" : `${plural(Math.abs(d), "action")} ${d > 0 ? "later" : "earlier"}`;
  summary.textContent = `Memory anchor: checkpoint ${cp.number} (${cp.role}, ${pct(cp.progress)} drawn, ${where})`;
  const lines = cp.answers.map(([title, text]) => {
    const p = el("p");
    p.append(el("span", "rp-dim", `${title}: `), text || "(no answer)");
    return p;
  });
  lines.push(el("p", "rp-muted", `Answered at ${cp.time_label}, at action ${cp.pos + 1}.`));
  body.replaceChildren(...lines);
}
