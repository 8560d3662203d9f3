// A group's slug when the caller names none (DESIGN.md §7): the name lowercased, compatibility-
// decomposed with its diacritics dropped ("Équipe Café" → "equipe-cafe"), every run of anything
// but a-z and 0-9 one hyphen, no hyphen at either end, at most 63 characters. The result always
// matches GROUP_SLUG_PATTERN, or is null when nothing of the name is left.

/** The longest slug GROUP_SLUG_PATTERN allows. */
export const GROUP_SLUG_MAX_LENGTH = 63;

export function deriveGroupSlug(name: string): string | null {
  const slug = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, GROUP_SLUG_MAX_LENGTH)
    .replace(/-+$/, '');
  return slug === '' ? null : slug;
}
