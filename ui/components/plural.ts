/** A count with its noun, in the singular for one: `1 stock`, `3 stocks`, `0 symbols`. */
export function plural(count: number, singular: string, pluralWord = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralWord}`;
}
