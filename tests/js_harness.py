"""The page the JavaScript unit tests run a custom component's module on, without Streamlit.

:func:`page_html` is a page with a field outside the component and the function ``gwShadow(js,
html, css)``, which mounts the module as Streamlit mounts a custom component: the HTML and CSS in
an open shadow root (replacing the last one), the module imported from a blob URL (a new module each
time, so no test sees another's state); it returns ``[shadow, module]``. The test module's own
script (``window.gw``) mounts through it and records what the module sends.

:func:`fake_clock_tab` opens that page in a browser context of its own whose clock is Playwright's
fake clock, paused: time moves only when a test runs it forward. (The fake clock belongs to a whole
browser context, so it would reach every tab of the suite's shared one.)"""

from __future__ import annotations

import datetime
from collections.abc import Iterator

_MOUNT = """
async function gwShadow(js, html, css) {
  if (document.activeElement) document.activeElement.blur();
  document.getElementById("outside").value = "";
  const host = document.createElement("div");
  host.id = "host";
  document.getElementById("host").replaceWith(host);
  const shadow = host.attachShadow({mode: "open"});
  const wrap = document.createElement("div"), inner = document.createElement("div");
  const style = document.createElement("style");
  inner.innerHTML = html;
  style.textContent = css;
  wrap.append(inner, style);
  shadow.append(wrap);
  const url = URL.createObjectURL(new Blob([js], {type: "text/javascript"}));
  return [shadow, (await import(url)).default];
}
"""


def page_html(title: str, outside: str, script: str) -> str:
    """The harness page: a field labelled ``outside``, the host, ``gwShadow`` and ``script``."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body>
<input id="outside" aria-label="{outside}">
<div id="host"></div>
<script>{_MOUNT}{script}</script>
</body></html>"""


def fake_clock_tab(browser, context_args: dict, origin: str, html: str) -> Iterator:  # noqa: ANN001
    """A tab on ``html`` (served at ``origin``) in its own context, whose fake clock is paused."""
    ctx = browser.new_context(**context_args)
    t0 = datetime.datetime(2025, 1, 6, 9, 0, tzinfo=datetime.UTC)
    ctx.clock.install(time=t0)
    ctx.clock.pause_at(t0 + datetime.timedelta(hours=1))
    page = ctx.new_page()
    page.route(f"{origin}/**", lambda route: route.fulfill(body=html, content_type="text/html"))
    page.goto(f"{origin}/")
    try:
        yield page
    finally:
        ctx.close()
