// Writes or clears the sign-in cookies (Streamlit cannot set a cookie from Python): the sign-in token,
// and the device tokens that make this browser known to the accounts that signed in here. Each write
// names its cookie; a clear that names the value it is for ("only_if") leaves a cookie that holds
// another value alone. A value is made of digits, letters, "-", "_", "." and "~" (between device
// tokens); anything else is refused. The cookies are sent only to this site (SameSite=Strict), on
// every path, and only over https when the page is.
const VALUE = /^[A-Za-z0-9._~-]{1,1024}$/;
const NAME = /^[A-Za-z0-9_]{1,64}$/;

function currentValue(name) {
  const prefix = `${name}=`;
  const found = document.cookie.split("; ").find((part) => part.startsWith(prefix));
  return found === undefined ? null : found.slice(prefix.length);
}

function write(cookie, tail) {
  if (!cookie || !NAME.test(String(cookie.name || ""))) return;
  if (cookie.value && VALUE.test(String(cookie.value))) {
    const maxAge = Math.max(0, Math.floor(Number(cookie.max_age) || 0));
    document.cookie = `${cookie.name}=${cookie.value}; Max-Age=${maxAge}${tail}`;
  } else if (!cookie.value && (!cookie.only_if || currentValue(cookie.name) === String(cookie.only_if))) {
    document.cookie = `${cookie.name}=; Max-Age=0${tail}`;
  }
}

export default function writeSignInCookies(component) {
  const data = component.data || {};
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  const tail = `; Path=/; SameSite=Strict${secure}`;
  for (const cookie of Array.isArray(data.cookies) ? data.cookies : []) write(cookie, tail);
}
