// Writes or clears the sign-in cookie (Streamlit cannot set a cookie from Python); a clear that
// names the token it is for ("only_if") leaves a cookie that holds another token alone. The value is a
// sign-in token made of digits, letters, "-", "_" and "."; anything else is refused. The cookie is
// sent only to this site (SameSite=Strict), on every path, and only over https when the page is.
const TOKEN = /^[A-Za-z0-9._-]{1,512}$/;
const NAME = /^[A-Za-z0-9_]{1,64}$/;

function currentValue(name) {
  const prefix = `${name}=`;
  const found = document.cookie.split("; ").find((part) => part.startsWith(prefix));
  return found === undefined ? null : found.slice(prefix.length);
}

export default function writeSignInCookie(component) {
  const data = component.data || {};
  if (!NAME.test(String(data.name || ""))) return;
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  const tail = `; Path=/; SameSite=Strict${secure}`;
  if (data.value && TOKEN.test(String(data.value))) {
    const maxAge = Math.max(0, Math.floor(Number(data.max_age) || 0));
    document.cookie = `${data.name}=${data.value}; Max-Age=${maxAge}${tail}`;
  } else if (!data.only_if || currentValue(data.name) === String(data.only_if)) {
    document.cookie = `${data.name}=; Max-Age=0${tail}`;
  }
}
