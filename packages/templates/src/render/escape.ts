const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text and attribute values alike: & < > " ' are escaped. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** One header-safe line: CR, LF, tabs and other control characters become single spaces. */
export function oneLine(value: string): string {
  return value
    .replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

export interface PlaceholderValues {
  projectName: string;
  environmentName: string;
  supportEmail: string;
}

const PLACEHOLDER = /\{\{(projectName|environmentName|supportEmail)\}\}/g;

/** Fills the three known placeholders; any other {{…}} stays as written. */
export function fillPlaceholders(value: string, values: PlaceholderValues): string {
  if (!value.includes('{{')) return value;
  return value.replace(PLACEHOLDER, (_m, name: keyof PlaceholderValues) => values[name]);
}

/** ISO date-times read as "22 Nov 2026, 10:15 UTC"; anything else is shown as given. */
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
export function formatDateTime(value: string): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${hh}:${mm} UTC`;
}
