// The tile player's text beside the grid: the step's caption, its panel of (label, value) rows
// and its messages grouped by kind (the payload's message_kinds, in order, each under its heading).
// Everything from the data is set with textContent, never as markup.

function renderCaption(node, data, t) {
  node.textContent = t < 0 ? `No ${data.step_noun}s to show: only the grid is shown.` : data.steps[t].caption;
}

function renderPanel(node, data, t) {
  const rows = t < 0 ? [] : data.steps[t].panel;
  const items = [];
  for (const [label, value] of rows) items.push(el("dt", "", label), el("dd", "", value));
  node.replaceChildren(...items);
  node.hidden = !rows.length;
}

function renderMessages(node, data, t) {
  const messages = t < 0 ? [] : data.steps[t].messages;
  if (!messages.length) {
    node.replaceChildren(el("p", "rp-muted tp-none", `No messages at this ${data.step_noun}.`));
    return;
  }
  const parts = [];
  for (const kind of data.message_kinds) {
    const mine = messages.filter((m) => m[2] === kind.name);
    if (!mine.length) continue;
    const group = el("section", "tp-group");
    group.dataset.kind = kind.name;
    group.append(el("div", "tp-kind", kind.title));
    for (const [who, text, , detail] of mine) {
      const row = el("div", "tp-msg");
      row.append(el("span", "tp-who", who), " ", el("span", "tp-text", text));
      if (detail) row.append(el("div", "tp-detail", detail));
      group.append(row);
    }
    parts.push(group);
  }
  node.replaceChildren(...parts);
}
