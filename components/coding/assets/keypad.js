// The coding keypad: the codes, the note and the unsure flag of one item, and every key of the
// coding screen. A code's key (or a click) sends the code, the note and the flag as they are at
// that moment, with a fresh request id, in one event; the app saves them together. Keys typed
// into the note stay in the note (Enter or Esc gives the keys back to the codes); keys typed
// into another field of the page are left alone. Text from the codebook, a label or a note is
// set with textContent, never as markup.

const TEXT_INPUT_TYPES = ["checkbox", "radio", "button", "submit", "reset", "range", "color", "file", "image"];
const UNLOCK_AFTER_MS = 8000; // a reply that never comes must not lock the keypad for good

// Notes and flags typed for an item and not yet sent, by item, and the label on its way to the
// app, kept while the page lives (also when the app draws the keypad anew).
const drafts = new Map();
const sending = { label: null }; // {request_id, item, note, unsure, timer}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function kbd(text) {
  return el("kbd", "", text);
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
    let reload = previous === null || previous.item !== data.item;
    let carried = ""; // text typed into the note after the last label's key
    if (sending.label && data.ack === sending.label.request_id) {
      const sent = sending.label;
      clearTimeout(sent.timer);
      sending.label = null;
      reload = true;
      if (data.saved) {
        drafts.delete(sent.item);
        carried = this.note.value; // belongs to the item shown now
      } else {
        // Refused: the note and the flag come back as they were sent, nothing typed since is lost.
        drafts.set(sent.item, { note: [sent.note, this.note.value].filter(Boolean).join(" "), unsure: sent.unsure });
      }
    }
    this.data = data;
    this.buildCodes();
    const keys = this.commandKeys();
    this.root.dataset.noteKey = keys.note;
    if (reload) {
      const draft = drafts.get(data.item) || { note: "", unsure: false };
      const note = [draft.note, carried].filter(Boolean).join(" ").slice(0, data.note_max || undefined);
      this.note.value = note;
      this.unsure.checked = Boolean(draft.unsure);
      if (note || draft.unsure) drafts.set(data.item, { note, unsure: Boolean(draft.unsure) });
    }
    this.root.dataset.item = data.item;
    this.root.dataset.state = sending.label ? "saving" : "ready";
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
    this.showDetail();
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
      b.disabled = !this.data.enabled || Boolean(sending.label);
      b.dataset.chosen = String(code === chosen);
      b.setAttribute("aria-pressed", String(code === chosen));
    }
  }

  byCode(code) {
    return this.data.codes.find((c) => c.code === code) || null;
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
    for (const [code, b] of this.buttons) b.dataset.focused = String(c !== undefined && code === c.code);
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

  keepDraft() {
    if (!this.data) return;
    const note = this.note.value;
    const unsure = this.unsure.checked;
    if (note || unsure) drafts.set(this.data.item, { note, unsure });
    else drafts.delete(this.data.item);
  }

  // -- keys -------------------------------------------------------------------------------------

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

  send(code) {
    const c = this.byCode(code);
    if (!c) return;
    if (!this.data.enabled) {
      this.setStatus("error", this.data.disabled_reason || "Labels cannot be given here.");
      return;
    }
    if (sending.label) {
      this.setStatus("busy", `Saving the last label… press ${c.key} again once the next item shows.`);
      return;
    }
    const note = this.note.value.trim();
    if (c.requires_note && !note) {
      const open = this.commandKeys().note ? `press ${this.commandKeys().note}` : "click the note";
      this.setStatus("error", `${c.name} needs a note: ${open}, write why, press Enter, then ${c.key}.`);
      return;
    }
    const request = { item: this.data.item, code: c.code, note, unsure: this.unsure.checked, request_id: requestId() };
    sending.label = { request_id: request.request_id, item: request.item, note, unsure: request.unsure };
    sending.label.timer = setTimeout(() => this.unlock(request.request_id), UNLOCK_AFTER_MS);
    // What is typed from now on belongs to whatever item shows next, never to this label.
    drafts.delete(request.item);
    this.note.value = "";
    this.unsure.checked = false;
    this.root.dataset.state = "saving";
    for (const b of this.buttons.values()) b.disabled = true;
    this.setStatus("busy", `Saving ${c.name}…`);
    this.trigger("label", request);
  }

  unlock(id) {
    if (!sending.label || sending.label.request_id !== id) return;
    const sent = sending.label;
    sending.label = null;
    drafts.set(sent.item, { note: [sent.note, this.note.value].filter(Boolean).join(" "), unsure: sent.unsure });
    this.note.value = drafts.get(sent.item).note;
    this.unsure.checked = sent.unsure;
    this.root.dataset.state = "ready";
    this.buildCodes();
    this.setStatus("error", "No answer from the server yet: check your label below before going on.");
  }
}

export default function mountCodingKeypad(component) {
  const { data, parentElement, setTriggerValue } = component;
  const root = parentElement.querySelector(".kp-root");
  if (!root.keypad) root.keypad = new Keypad(root);
  const pad = root.keypad;
  pad.update(data, setTriggerValue);
  const onKey = (e) => pad.key(e);
  window.addEventListener("keydown", onKey, true);
  return () => window.removeEventListener("keydown", onKey, true);
}
