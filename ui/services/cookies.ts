/** The avatar's initial, from the readable `initial` cookie the server sets at sign-in. */
export function readInitial(cookie: string = document.cookie): string {
  for (const part of cookie.split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === 'initial') return decodeURIComponent(value.join('=')).slice(0, 1).toUpperCase();
  }
  return '';
}
