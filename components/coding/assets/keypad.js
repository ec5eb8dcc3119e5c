// The coding keypad: the codes, the note and the unsure flag of one item, and every key of the
// coding screen. A code's key (or a click) sends the code, the note and the flag as they are at
// that moment, with a fresh request id, in one event; the app saves them together. Keys typed
// into the note stay in the note (Enter or Esc gives the keys back to the codes); keys typed
// into another field of the page are left alone. Text from the codebook, a label or a note is
// set with textContent, never as markup.
//
// The hand-over: from a code's key until the app answers that label (with the next item, as a
// rerun takes a few hundred ms). A coder at full speed is already on the next item then, so what
// they type meanwhile is for the item the app shows next, never for the label on its way: the
// note and the flag on screen are that item's, and a code's key waits in a queue with the note and
// flag as they were when it went down, and is sent for the item the answer shows. Nothing typed
// during a hand-over is refused or saved with another item's label. Only when the label on its way
// is not saved (refused, or no answer in 8 s) are the codes queued behind it not sent, as the item
// they were for never came: the keypad names them, and keeps their notes on screen.

const TEXT_INPUT_TYPES = ["checkbox", "radio", "button", "submit", "reset", "range", "color", "file", "image"];
const UNLOCK_AFTER_MS = 8000; // a reply that never comes must not lock the keypad for good
const EMPTY = Object.freeze({ note: "", unsure: false });

// Kept while the page lives (also when the app draws the keypad anew): the notes and flags typed
// for an item and not yet sent, by item; and the hand-over, if one is under way: the label on its
// way to the app, and the code keys pressed since, in order, each as {code, note, unsure}. One
// label at a time is on its way: a trigger is one-shot, and the answer says which item comes next.
const drafts = new Map();
const handover = { label: null, queued: [] }; // label: {request_id, item, code, note, unsure, timer}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function kbd(text) {
  return el("kbd", "", text);
}

function joined(...notes) {
  return notes.filter(Boolean).join(" ");
}

function requestId() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes); // also where crypto.randomUUID is missing (plain http)
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// Is the key meant for a text field (ours or the page's)? Then it is typing, not a command.
function typingInto(target) {
  if (!target || !target.tagName) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") return !TEXT_INPUT_TYPES.includes((target.type || "text").toLowerCase());
  const role = target.getAttribute ? target.getAttribute("role") : null;
  return role === "textbox" || role === "combobox" || role === "searchbox";
}

class Keypad {
  constructor(root) {
    this.root = root;
    this.q = (sel) => root.querySelector(sel);
    this.data = null;
    this.trigger = null;
    this.hovered = null;
    this.codesSignature = "";
    this.note = this.q(".kp-note");
    this.unsure = this.q(".kp-unsure");
    this.codes = this.q(".kp-codes");
    this.buttons = new Map();
    // Keys typed into the note belong to the note: nothing else on the page sees them.
    this.note.addEventListener("keydown", (e) => {
      if (e.isComposing) return;
      if (e.key === "Enter" || e.key === "Escape") {
        e.preventDefault();
        this.leaveNote();
      }
      e.stopPropagation();
    });
    this.note.addEventListener("input", () => this.keepDraft());
    this.unsure.addEventListener("change", () => {
      this.keepDraft();
      this.unsure.blur();
      this.root.focus({ preventScroll: true });
    });
    // Clicking a code must not take the focus (the keys stay the keypad's).
    this.codes.addEventListener("mousedown", (e) => {
      if (e.target.closest("button")) e.preventDefault();
    });
    this.codes.addEventListener("click", (e) => {
      const b = e.target.closest("button");
      if (b && !b.disabled) this.send(b.dataset.code);
    });
    this.codes.addEventListener("mouseover", (e) => {
      const b = e.target.closest("button");
      if (b && b.dataset.code !== this.hovered) {
        this.hovered = b.dataset.code;
        this.showDetail();
      }
    });
    this.codes.addEventListener("mouseleave", () => {
      this.hovered = null;
      this.showDetail();
    });
    this.codes.addEventListener("focusin", (e) => {
      const b = e.target.closest("button");
      if (b) {
        this.hovered = b.dataset.code;
        this.showDetail();
      }
    });
  }

  // -- new data from the app --------------------------------------------------------------------

  update(data, trigger) {
    this.trigger = trigger;
    const previous = this.data;
    this.data = data;
    this.buildCodes();
    const keys = this.commandKeys();
    this.root.dataset.noteKey = keys.note;
    this.root.dataset.item = data.item;
    if (data.note_max) this.note.maxLength = data.note_max;
    this.note.disabled = !data.enabled;
    this.unsure.disabled = !data.enabled;
    this.q(".kp-note-title").textContent = data.note_label;
    this.note.placeholder = `${keys.note ? `${keys.note}: write a note` : "Click to write a note"} · Enter: back to the codes`;
    this.q(".kp-unsure-text").textContent = keys.unsure ? `Unsure (${keys.unsure})` : "Unsure";
    this.showCurrent();
    this.showKeys();
    this.setStatus(data.status ? data.status.kind : "", data.status ? data.status.text : "");
    if (!data.enabled && !data.status) this.setStatus("", data.disabled_reason || "");
    if (handover.label && data.ack === handover.label.request_id) this.answered(data.saved);
    // During a hand-over the fields hold what is typed for the item that comes next: another item
    // shown without the answer (the coder moved on) leaves them alone until the answer comes.
    else if (!handover.label && (previous === null || previous.item !== data.item)) this.showDraft();
    if (handover.label && !data.status) this.showSaving(); // the app has nothing else to say yet
    this.showState();
    this.showDetail();
  }

  // The app's answer to the label on its way, with the item that comes next: the hand-over ends.
  answered(saved) {
    const sent = handover.label;
    clearTimeout(sent.timer);
    handover.label = null;
    if (!saved) {
      this.setStatus("error", (this.data.status ? this.data.status.text : "Not saved.") + this.giveBack(sent));
      return;
    }
    drafts.delete(sent.item);
    const next = handover.queued[0];
    const c = next && this.data.enabled ? this.byCode(next.code) : null;
    if (c) {
      // The first code key pressed during the hand-over labels the item shown now, with the note
      // and flag typed before it added to the item's own draft. The fields keep what was typed
      // after it: that is for the item after this one.
      handover.queued.shift();
      const draft = drafts.get(this.data.item) || EMPTY;
      this.dispatch(c, joined(draft.note, next.note), draft.unsure || next.unsure);
    } else if (next) {
      this.setStatus("error", (this.data.disabled_reason || "Labels cannot be given here.") + this.giveBack(null));
    } else {
      this.showDraft(this.typed()); // what was typed during the hand-over is this item's
    }
  }

  // A label that was not saved (refused, or no answer in time): its note and flag go back to its own
  // item, shown or not. The code keys pressed since are not sent (the item they were for never
  // came); what was typed since, their notes included, stays on screen, added to the draft of the
  // item shown. Returns the sentence for the status that names what was not sent.
  giveBack(sent) {
    if (sent && (sent.note || sent.unsure)) drafts.set(sent.item, { note: sent.note, unsure: sent.unsure });
    const queued = handover.queued.splice(0);
    const typed = this.typed();
    this.showDraft({ note: joined(...queued.map((q) => q.note), typed.note), unsure: typed.unsure });
    if (!queued.length) return "";
    const names = queued.map((q) => `${this.nameOf(q.code)}${q.unsure ? " (unsure)" : ""}`);
    return ` Not sent, pressed while the label was saving: ${names.join(", ")}.`;
  }

  commandKeys() {
    return { note: this.data.note_key, unsure: this.data.unsure_key };
  }

  buildCodes() {
    const signature = JSON.stringify(this.data.codes);
    if (signature !== this.codesSignature) {
      this.codesSignature = signature;
      this.buttons.clear();
      this.keyMap = new Map();
      const nodes = this.data.codes.map((c) => {
        const b = el("button", "kp-code");
        b.type = "button";
        b.dataset.code = c.code;
        b.title = c.definition || "";
        b.append(el("span", "kp-key", c.key), el("span", "kp-name", c.name));
        if (c.requires_note) b.querySelector(".kp-name").append(" ", el("span", "kp-needs", "(needs a note)"));
        this.buttons.set(c.code, b);
        this.keyMap.set(c.key, c.code);
        if (!this.keyMap.has(c.key.toLowerCase())) this.keyMap.set(c.key.toLowerCase(), c.code);
        return b;
      });
      this.codes.replaceChildren(...nodes);
    }
    const chosen = this.data.current ? this.data.current.code : null;
    for (const [code, b] of this.buttons) {
      b.dataset.chosen = String(code === chosen);
      b.setAttribute("aria-pressed", String(code === chosen));
    }
  }

  byCode(code) {
    return this.data.codes.find((c) => c.code === code) || null;
  }

  nameOf(code) {
    const c = this.byCode(code);
    return c ? c.name : code;
  }

  // Saving while a label is on its way; the codes can be clicked only when none is.
  showState() {
    this.root.dataset.state = handover.label ? "saving" : "ready";
    for (const b of this.buttons.values()) b.disabled = !this.data.enabled || Boolean(handover.label);
  }

  showSaving() {
    const waiting = handover.queued.map((q) => this.nameOf(q.code));
    const then = waiting.length ? ` then ${waiting.join(", ")}.` : "";
    this.setStatus("busy", `Saving ${this.nameOf(handover.label.code)}…${then}`);
  }

  showCurrent() {
    const box = this.q(".kp-current");
    const cur = this.data.current;
    box.hidden = !cur;
    if (!cur) return;
    const parts = [el("b", "", cur.name)];
    if (cur.note) parts.push(`; note: “${cur.note}”`);
    if (cur.unsure) parts.push("; unsure");
    box.replaceChildren("Your label: ", ...parts, ". Press another code to relabel; the history is kept.");
  }

  showKeys() {
    const line = this.q(".kp-keys");
    const keys = this.data.codes.map((c) => c.key);
    const { note, unsure } = this.commandKeys();
    const parts = [];
    if (keys.length > 3) parts.push(kbd(keys[0]), "…", kbd(keys[keys.length - 1]));
    else keys.forEach((k, i) => parts.push(...(i ? [" ", kbd(k)] : [kbd(k)])));
    parts.push(" give a code · ");
    if (note) parts.push(kbd(note), " write a note · ");
    parts.push(kbd("Enter"), " or ", kbd("Esc"), " back to the codes");
    if (unsure) parts.push(" · ", kbd(unsure), " unsure");
    parts.push(" · ", kbd("←"), " ", kbd("→"), " previous / next item");
    line.replaceChildren(...parts);
  }

  showDetail() {
    if (!this.data) return;
    const chosen = this.hovered || this.data.focus || (this.data.current && this.data.current.code);
    const c = this.byCode(chosen) || this.data.codes[0];
    // Outlined: only the code pointed at. The last code used (its definition shown here) is not
    // outlined on the next item, which would look as if that item were coded already.
    for (const [code, b] of this.buttons) b.dataset.focused = String(this.hovered !== null && code === this.hovered);
    if (!c) return;
    this.q(".kp-detail-title").replaceChildren(el("span", "kp-key", c.key), " ", c.name,
      c.requires_note ? " (needs a note)" : "");
    this.q(".kp-definition").textContent = c.definition || "";
    const lists = [];
    for (const [title, items, cls] of [["Examples", c.positive, "kp-yes"], ["Not this code", c.negative, "kp-not"]]) {
      if (!items || !items.length) continue;
      const box = el("div", cls);
      const ul = el("ul");
      ul.append(...items.map((t) => el("li", "", t)));
      box.append(el("h4", "", title), ul);
      lists.push(box);
    }
    this.q(".kp-examples").replaceChildren(...lists);
  }

  setStatus(kind, text) {
    const s = this.q(".kp-status");
    s.dataset.kind = kind || "";
    s.textContent = text || "";
  }

  typed() {
    return { note: this.note.value, unsure: this.unsure.checked };
  }

  // During a hand-over the fields are not the shown item's: they are read when the answer comes.
  keepDraft() {
    if (!this.data || handover.label) return;
    const { note, unsure } = this.typed();
    if (note || unsure) drafts.set(this.data.item, { note, unsure });
    else drafts.delete(this.data.item);
  }

  // The fields show the shown item's draft, with ``extra`` (typed for it elsewhere) added.
  showDraft(extra = EMPTY) {
    const draft = drafts.get(this.data.item) || EMPTY;
    const note = joined(draft.note, extra.note).slice(0, this.data.note_max || undefined);
    if (this.note.value !== note) this.note.value = note; // unchanged: the caret stays where it is
    this.unsure.checked = Boolean(draft.unsure || extra.unsure);
    this.keepDraft();
  }

  // -- keys -------------------------------------------------------------------------------------

  // One listener on the window for the keypad's whole life (see mountCodingKeypad).
  listen() {
    if (this.onKey) return;
    this.onKey = (e) => (this.root.isConnected ? this.key(e) : this.stopIfGone());
    window.addEventListener("keydown", this.onKey, true);
  }

  stopIfGone() {
    if (!this.onKey || this.root.isConnected) return;
    window.removeEventListener("keydown", this.onKey, true);
    this.onKey = null;
  }

  openNote() {
    if (!this.data.enabled) return;
    this.note.focus({ preventScroll: true });
    const end = this.note.value.length;
    this.note.setSelectionRange(end, end);
  }

  leaveNote() {
    this.keepDraft();
    this.note.blur();
    this.root.focus({ preventScroll: true });
  }

  key(e) {
    if (!this.data || e.isComposing || e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.composedPath()[0];
    if (target === this.note || typingInto(target)) return;
    const { note, unsure } = this.commandKeys();
    const k = e.key;
    if (k === note) {
      e.preventDefault(); // the key opens the note; it is not typed into it
      e.stopPropagation();
      this.openNote();
      return;
    }
    if (unsure && k === unsure) {
      e.preventDefault();
      e.stopPropagation();
      if (this.data.enabled) {
        this.unsure.checked = !this.unsure.checked;
        this.keepDraft();
      }
      return;
    }
    const code = this.keyMap.get(k) || (k.length === 1 ? this.keyMap.get(k.toLowerCase()) : undefined);
    if (code === undefined) return;
    e.preventDefault();
    e.stopPropagation();
    this.send(code);
  }

  // A code's key or click: the label of the item shown, or, during a hand-over, of the item that
  // comes next (queued until the answer shows it).
  send(code) {
    const c = this.byCode(code);
    if (!c) return;
    if (!this.data.enabled) {
      this.setStatus("error", this.data.disabled_reason || "Labels cannot be given here.");
      return;
    }
    const note = this.note.value.trim();
    if (c.requires_note && !note) {
      const open = this.commandKeys().note ? `press ${this.commandKeys().note}` : "click the note";
      this.setStatus("error", `${c.name} needs a note: ${open}, write why, press Enter, then ${c.key}.`);
      return;
    }
    const unsure = this.unsure.checked;
    // What is typed from now on belongs to whatever item shows next, never to this label.
    this.note.value = "";
    this.unsure.checked = false;
    if (handover.label) {
      handover.queued.push({ code: c.code, note, unsure });
      this.showSaving();
    } else {
      this.dispatch(c, note, unsure);
    }
  }

  // The label of the item shown, to the app: the hand-over starts.
  dispatch(c, note, unsure) {
    const request = { item: this.data.item, code: c.code, note, unsure, request_id: requestId() };
    drafts.delete(request.item); // the draft is in the label now
    handover.label = { request_id: request.request_id, item: request.item, code: c.code, note, unsure };
    handover.label.timer = setTimeout(() => this.unlock(request.request_id), UNLOCK_AFTER_MS);
    this.showState();
    this.showSaving();
    this.trigger("label", request);
  }

  // No answer in time: the label may or may not be saved, so its note and flag go back to its own
  // item (on screen only if that item is shown) for the coder to check.
  unlock(id) {
    if (!handover.label || handover.label.request_id !== id) return;
    const sent = handover.label;
    handover.label = null;
    const notSent = this.giveBack(sent);
    this.showState();
    this.setStatus("error", `No answer from the server yet: check your label below before going on.${notSent}`);
  }
}

// Streamlit (1.67) calls this function again with each new data, on the same parent, and keeps
// only the cleanup the last call returned (run when the keypad leaves the page; a call it cancelled
// meanwhile has its cleanup run at once, maybe after a later call). A key listener added per call
// would stay, and every key would be handled once per call so far: the flag flipped back and forth,
// a code sent again. So the keypad listens once, and stops once its element has left the page.
export default function mountCodingKeypad(component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector(".kp-root");
  if (!root.keypad) root.keypad = new Keypad(root);
  const pad = root.keypad;
  pad.update(data, setTriggerValue);
  pad.listen();
  return () => pad.stopIfGone();
}
