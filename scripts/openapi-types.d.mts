export const DOCUMENT: string;
export const TYPES: string;
export function renderOpenApiTypes(document?: string): Promise<string>;
