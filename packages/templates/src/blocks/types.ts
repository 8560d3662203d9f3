// The block model: a template version is an ordered list of fields; each field is one block.

export type DetailFormat = 'date-time' | 'email' | 'string';

export type TextRole = 'subject' | 'preheader' | 'heading' | 'paragraph' | 'notice' | 'note';

export interface TextField {
  kind: 'text';
  name: string;
  role: TextRole;
  maxLength: number;
  default?: string;
}

export interface CodeField {
  kind: 'code';
  name: string;
  maxLength: number;
}

export interface UrlField {
  kind: 'url';
  name: string;
  label: string;
}

export interface ActionButtonField {
  kind: 'actionButton';
  name: string;
  labelDefault: string;
  isUrlRequired: boolean;
}

export interface DetailRow {
  key: string;
  label: string;
  format: DetailFormat;
}

export interface DetailsTableField {
  kind: 'detailsTable';
  name: string;
  heading: string;
  rows: DetailRow[];
  /** Keys the message means nothing without; a table with any is itself required. */
  required: string[];
}

export type Field = TextField | CodeField | UrlField | ActionButtonField | DetailsTableField;

export type JsonSchema = Record<string, unknown>;
