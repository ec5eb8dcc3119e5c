// What every replay player builds its text with: elements whose text is set with textContent
// (never as markup: everything that came from a dataset is text), and the keys of a legend.

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function legendKey(swatch, label) {
  const key = el("span", "rp-key");
  key.append(swatch, label);
  return key;
}

function swatch(className, color, fill = true) {
  const s = el("span", `rp-swatch ${className || ""}`);
  if (fill) s.style.background = color;
  else s.style.borderColor = color;
  return s;
}

function glyph(text, color) {
  const g = el("span", "rp-glyph", text);
  g.style.color = color;
  return g;
}
