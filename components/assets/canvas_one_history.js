// The map editor keeps one history, the map's (its Undo and Redo buttons). The drawable canvas draws
// its own toolbar (undo, redo, reset, edit) inside its shadow root; this hides that toolbar in every
// canvas on the page, now and in each canvas mounted later (the canvas is new after every stroke).
const STYLE_ID = "gw-one-history";
const CSS = ".dc-toolbar { display: none !important; }";

function hideIn(root) {
  if (!root || root.getElementById(STYLE_ID) || !root.querySelector(".dc-toolbar, canvas")) return;
  const style = document.createElement("style");
  style.id = STYLE_ID;
  style.textContent = CSS;
  root.appendChild(style);
}

function hideAll() {
  document.querySelectorAll("[data-testid=stBidiComponentIsolated]").forEach((el) => hideIn(el.shadowRoot));
}

export default function oneHistory() {
  hideAll();
  const observer = new MutationObserver(hideAll);
  observer.observe(document.body, { childList: true, subtree: true });
  return () => observer.disconnect();
}
